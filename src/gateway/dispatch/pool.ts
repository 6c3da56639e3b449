import type { AccountsRepository } from '../accounts/repository';
import type { AccountRecord } from '../core/domain';
import { tierRank } from '../accounts/types';
import type { UpstreamFailure } from '../core/upstreamError';
import type { ImageUpstream } from '../upstream/types';
import {
  DEFAULT_COOLDOWNS,
  isOutage,
  judgeFailure,
  OutageTracker,
  type CooldownKind,
  type CooldownSettings,
} from './cooldownPolicy';
import type { SchedulableAccount } from './scheduler';

export interface PoolSelection {
  group: string;
  /** Output pixels the request needs delivered. */
  pixels: number;
  exclude: ReadonlySet<string>;
}

/** An account whose latest calls could not reach it: why (the last failure) and since when. */
export interface AccountFailing {
  reason: string;
  since: number;
}

export interface PoolStatus {
  kind: 'simulator' | 'accounts';
  label: string;
}

/**
 * The upstream accounts a gateway dispatches to. Stored accounts are re-read when the table
 * changes (the CLI may edit it while the gateway runs). When none is configured at all, the
 * built-in simulator serves every group, and it serves too while every stored account is disabled:
 * disabling the last account must not leave the studio with nothing (issue 22).
 */
export interface UpstreamPool {
  describe(): PoolStatus;
  /** Accounts the request may use now, for the scheduler. */
  eligible(selection: PoolSelection): SchedulableAccount[];
  /**
   * Why nothing is eligible: all cooling (with the end and kind of the first to come back), none
   * can deliver the size, or none in the group.
   */
  explainEmpty(
    selection: PoolSelection,
  ):
    | { reason: 'cooling'; until: number; kind: CooldownKind; detail: string }
    | { reason: 'too_large'; maxPixels: number }
    | { reason: 'no_accounts' }
    | { reason: 'all_tried' };
  record(id: string): AccountRecord | null;
  upstream(id: string): Promise<ImageUpstream>;
  succeeded(id: string): void;
  /**
   * Applies the cooldown policy to a failure seen by `request` (an id shared by every call of one
   * client request); returns the reason when the account was cooled or disabled.
   */
  failed(id: string, failure: UpstreamFailure, request: string): string | null;
  /**
   * Resolves once the account's latest rest or out-of-service reason is in the database (at once
   * when none is being written). The snapshot changes at once, but the other instances of a team
   * gateway learn of it only from the database: a caller answered before the write could send
   * its next request to another instance that still uses the account.
   */
  saved(id: string): Promise<void>;
  /** Reads the accounts again now (a team gateway's claim found a rest it had not heard of). */
  reread(): Promise<void>;
  list(): readonly AccountRecord[];
  /**
   * The account's latest calls did not reach it (no connection, a timeout, a 502-504), before any
   * cooldown took it out: shown as failing, not ready (issue 22). Null once it answers again.
   */
  failing(id: string): AccountFailing | null;
  /** The outcome of a connection test: null when it answered, else its failure. */
  noteTest(id: string, failure: UpstreamFailure | null): void;
}

export interface PoolDeps {
  accounts: Pick<AccountsRepository, 'cached' | 'version' | 'setCooldown' | 'update' | 'refresh'>;
  /** The implicit account used while no account is configured (the in-process simulator). */
  fallback: AccountRecord | null;
  makeUpstream: (account: AccountRecord) => Promise<ImageUpstream>;
  cooldowns?: CooldownSettings;
  now: () => number;
  log: (line: string) => void;
}

export function createUpstreamPool(deps: PoolDeps): UpstreamPool {
  let version = -1;
  let records: readonly AccountRecord[] = [];
  // Each account's tier rank, worked out when the list is re-read rather than on every request.
  let ranks = new Map<string, number>();
  const adapters = new Map<string, { key: string; upstream: Promise<ImageUpstream> }>();
  const cooldowns = deps.cooldowns ?? DEFAULT_COOLDOWNS;
  const outages = new OutageTracker(cooldowns);
  const failures = new Map<string, AccountFailing>();
  /** Each account's rest or out-of-service write still on its way to the database. */
  const writes = new Map<string, Promise<void>>();
  const track = (id: string, write: Promise<unknown>) => {
    const settled = write.then(
      () => undefined,
      () => undefined,
    );
    writes.set(id, settled);
    void settled.then(() => {
      if (writes.get(id) === settled) writes.delete(id);
    });
  };
  const noteReach = (id: string, failure: UpstreamFailure | null) => {
    if (failure === null || !isOutage(failure)) failures.delete(id);
    else
      failures.set(id, { reason: failure.message, since: failures.get(id)?.since ?? deps.now() });
  };

  const current = (): readonly AccountRecord[] => {
    const v = deps.accounts.version();
    if (v !== version) {
      version = v;
      const stored = deps.accounts.cached();
      const anyEnabled = stored.some((a) => a.enabled);
      records = anyEnabled || !deps.fallback ? stored : [...stored, deps.fallback];
      ranks = new Map(records.map((a) => [a.id, tierRank(a.tier)]));
    }
    return records;
  };

  const usable = (a: AccountRecord, now: number) =>
    a.enabled && a.disabledReason === null && (a.cooldownUntil === null || a.cooldownUntil <= now);
  const inGroup = (a: AccountRecord, group: string) =>
    a.id === deps.fallback?.id || a.groupName === group;

  return {
    describe() {
      const all = current();
      if (all.some((a) => a.id === deps.fallback?.id))
        return { kind: 'simulator', label: 'Offline simulator' };
      const ready = all.filter((a) => usable(a, deps.now())).length;
      return {
        kind: 'accounts',
        label: `${ready} of ${all.length} account${all.length === 1 ? '' : 's'} ready`,
      };
    },

    eligible({ group, pixels, exclude }) {
      const now = deps.now();
      return current()
        .filter(
          (a) => inGroup(a, group) && usable(a, now) && !exclude.has(a.id) && a.maxPixels >= pixels,
        )
        .map((a) => ({ id: a.id, capacity: a.capacity, rank: ranks.get(a.id)! }));
    },

    explainEmpty({ group, pixels, exclude }) {
      const now = deps.now();
      const members = current().filter(
        (a) => inGroup(a, group) && a.enabled && a.disabledReason === null,
      );
      if (members.length === 0) return { reason: 'no_accounts' };
      const big = members.filter((a) => a.maxPixels >= pixels);
      if (big.length === 0)
        return { reason: 'too_large', maxPixels: Math.max(...members.map((a) => a.maxPixels)) };
      const cooling = big.filter(
        (a) => a.cooldownUntil !== null && a.cooldownUntil > now && !exclude.has(a.id),
      );
      if (
        cooling.length > 0 &&
        cooling.length + big.filter((a) => exclude.has(a.id)).length === big.length
      ) {
        const first = cooling.reduce((a, b) => (b.cooldownUntil! < a.cooldownUntil! ? b : a));
        return {
          reason: 'cooling',
          until: first.cooldownUntil!,
          // Rows cooled before kinds were stored were usage-limit or outage rests: say the former.
          kind: first.cooldownKind ?? 'usage_limit',
          detail: first.cooldownReason ?? 'no reason recorded',
        };
      }
      return { reason: 'all_tried' };
    },

    record: (id) => current().find((a) => a.id === id) ?? null,

    upstream(id) {
      const account = current().find((a) => a.id === id);
      if (!account) return Promise.reject(new Error(`account ${id} is gone`));
      // Rebuild the adapter when anything it depends on changed (base URL, secret, model map).
      const key = JSON.stringify([
        account.baseUrl,
        account.secretName,
        account.modelMap,
        account.bridgeModel,
        account.upstreamAccountId,
      ]);
      const cached = adapters.get(id);
      if (cached && cached.key === key) return cached.upstream;
      const upstream = deps.makeUpstream(account);
      upstream.catch(() => adapters.delete(id));
      adapters.set(id, { key, upstream });
      return upstream;
    },

    succeeded(id) {
      outages.reset(id);
      failures.delete(id);
    },

    failed(id, failure, request) {
      const now = deps.now();
      if (failure.kind !== 'cancelled') noteReach(id, failure);
      // Any answer that is not an outage shows the account is reachable: the run of outages ends.
      let evidence = { requests: 0 };
      if (isOutage(failure)) evidence = outages.note(id, request, now);
      else outages.reset(id);
      const verdict = judgeFailure(failure, evidence, now, cooldowns);
      if (verdict.action === 'none' || id === deps.fallback?.id) return null;
      if (verdict.action === 'cooldown') {
        // The snapshot rests it at once (the next pick here skips it); the write tells the others.
        track(
          id,
          deps.accounts
            .setCooldown(id, verdict.untilMs, verdict.reason, verdict.kind)
            .catch((error: Error) =>
              deps.log(`account ${id}: its rest was not saved: ${error.message}`),
            ),
        );
        deps.log(
          `account ${id} cooling down until ${new Date(verdict.untilMs).toISOString()}: ${verdict.reason}`,
        );
      } else {
        // A more specific reason may already be there (the token manager's "sign in again").
        const existing = deps.accounts.cached().find((a) => a.id === id)?.disabledReason;
        if (!existing)
          track(
            id,
            deps.accounts
              .update(id, { disabledReason: verdict.reason })
              .catch((error: Error) =>
                deps.log(`account ${id}: taking it out of service was not saved: ${error.message}`),
              ),
          );
        deps.log(`account ${id} taken out of service: ${verdict.reason}`);
      }
      outages.reset(id);
      return verdict.reason;
    },

    saved: (id) => writes.get(id) ?? Promise.resolve(),
    reread: () => deps.accounts.refresh(),
    list: () => current(),
    failing: (id) => failures.get(id) ?? null,
    noteTest: noteReach,
  };
}
