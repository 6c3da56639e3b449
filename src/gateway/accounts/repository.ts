import { randomBytes } from 'node:crypto';
import type { CooldownKind } from '../core/domain';
import type { AccountRecord } from '../core/domain';
import type { SqlEngine, SqlValue } from '../storage/engine';

interface AccountRow {
  id: string;
  name: string;
  kind: AccountRecord['kind'];
  tier: string;
  group_name: string;
  capacity: number;
  enabled: number;
  model_map: string;
  max_pixels: number;
  base_url: string;
  issuer: string | null;
  bridge_model: string | null;
  upstream_account_id: string | null;
  secret_name: string | null;
  disabled_reason: string | null;
  cooldown_until: number | null;
  cooldown_reason: string | null;
  cooldown_kind: CooldownKind | null;
  created_at: number;
}

export type NewAccount = Omit<
  AccountRecord,
  'id' | 'createdAt' | 'cooldownUntil' | 'cooldownReason' | 'cooldownKind' | 'disabledReason'
>;
export type AccountPatch = Partial<
  Pick<
    AccountRecord,
    | 'name'
    | 'tier'
    | 'groupName'
    | 'capacity'
    | 'enabled'
    | 'modelMap'
    | 'maxPixels'
    | 'baseUrl'
    | 'bridgeModel'
    | 'upstreamAccountId'
    | 'secretName'
    | 'disabledReason'
  >
>;

/**
 * The accounts table. Reads (`list`, `get`, `find`) ask the database; `cached()` is the snapshot
 * the dispatch pool picks from on every attempt without a query (see openAccountsRepository).
 */
export interface AccountsRepository {
  list(): Promise<AccountRecord[]>;
  get(id: string): Promise<AccountRecord | null>;
  /** By id, or by unique name (what people type on the command line). */
  find(idOrName: string): Promise<AccountRecord | null>;
  create(input: NewAccount): Promise<AccountRecord>;
  /** Applied to the snapshot at once (before the write resolves): the next pick sees it. */
  update(id: string, patch: AccountPatch): Promise<AccountRecord | null>;
  /**
   * `until` null ends the cooldown; the kind says why it rests (usage window unless told).
   * Applied to the snapshot at once, like `update`; in the database every instance sees it.
   */
  setCooldown(
    id: string,
    until: number | null,
    reason: string | null,
    kind?: CooldownKind | null,
  ): Promise<void>;
  remove(id: string): Promise<boolean>;
  /** The snapshot: every account as last read or written here, in creation order. */
  cached(): readonly AccountRecord[];
  /** Bumps whenever the snapshot changes, so the pool knows when to rebuild what it derives. */
  version(): number;
  /** Whether another connection (the CLI, another instance) changed the database since. */
  stale(): boolean;
  /** Reads the snapshot again. */
  refresh(): Promise<void>;
}

function fromRow(row: AccountRow): AccountRecord {
  return {
    id: row.id,
    name: row.name,
    kind: row.kind,
    tier: row.tier,
    groupName: row.group_name,
    capacity: row.capacity,
    enabled: row.enabled === 1,
    modelMap: JSON.parse(row.model_map) as Record<string, string>,
    maxPixels: row.max_pixels,
    baseUrl: row.base_url,
    issuer: row.issuer,
    bridgeModel: row.bridge_model,
    upstreamAccountId: row.upstream_account_id,
    secretName: row.secret_name,
    disabledReason: row.disabled_reason,
    cooldownUntil: row.cooldown_until,
    cooldownReason: row.cooldown_reason,
    cooldownKind: row.cooldown_kind,
    createdAt: row.created_at,
  };
}

const COLUMN: Record<keyof AccountPatch, string> = {
  name: 'name',
  tier: 'tier',
  groupName: 'group_name',
  capacity: 'capacity',
  enabled: 'enabled',
  modelMap: 'model_map',
  maxPixels: 'max_pixels',
  baseUrl: 'base_url',
  bridgeModel: 'bridge_model',
  upstreamAccountId: 'upstream_account_id',
  secretName: 'secret_name',
  disabledReason: 'disabled_reason',
};

function columnValue(field: keyof AccountPatch, value: unknown): SqlValue {
  if (field === 'enabled') return value ? 1 : 0;
  if (field === 'modelMap') return JSON.stringify(value);
  return value as SqlValue;
}

const ALL = 'SELECT * FROM accounts ORDER BY created_at, id';

/**
 * Opens the accounts on the storage port. The table (a handful of rows) is also held as a
 * snapshot, because the dispatch pool reads it on every pick, synchronously: read whole at open
 * (correct when cold), changed at once by this repository's own writes (a rest decided here
 * applies to the very next attempt), and read again when another connection changed the
 * database: `stale()` before a request (http/freshSnapshots.ts) and, on PostgreSQL, at once when
 * another instance's change notice arrives, so a rest seen by one instance reaches the others
 * within milliseconds, mid-request included.
 */
export async function openAccountsRepository(
  engine: SqlEngine,
  options: { clock?: () => number; log?: (line: string) => void } = {},
): Promise<AccountsRepository> {
  const clock = options.clock ?? Date.now;
  let records: AccountRecord[] = [];
  let version = 0;
  let stamp = engine.changeStamp('accounts');
  /** Writes not yet committed, and a count of those that finished: a refresh that overlapped one reads again. */
  const pending = new Set<Promise<unknown>>();
  let finished = 0;

  const read = async () => (await engine.all<AccountRow>(ALL)).map(fromRow);
  const readAgain = async (): Promise<void> => {
    for (;;) {
      while (pending.size > 0) await Promise.allSettled([...pending]);
      const before = finished;
      const seen = engine.changeStamp('accounts');
      const rows = await read();
      if (before !== finished || pending.size > 0) continue;
      records = rows;
      stamp = seen;
      version += 1;
      return;
    }
  };
  /**
   * Reads the snapshot again, at most one read at a time: a burst of change notices (rests
   * announced by several instances) costs two reads, not one per notice. A caller that comes
   * while a read runs waits for the next one, which starts after its call.
   */
  let reading: Promise<void> | null = null;
  let next: Promise<void> | null = null;
  const refresh = (): Promise<void> => {
    if (!reading) {
      reading = readAgain().finally(() => {
        reading = null;
      });
      return reading;
    }
    next ??= reading
      .catch(() => undefined)
      .then(() => {
        next = null;
        return refresh();
      });
    return next;
  };
  /**
   * Runs a write, counted, then reads the snapshot again so it holds what the database holds
   * (a failed write also undoes what was applied to the snapshot ahead of it).
   */
  const write = async <T>(work: () => Promise<T>): Promise<T> => {
    const running = work();
    pending.add(running);
    try {
      const result = await running;
      settle(running);
      await engine.announceChange('accounts');
      await refresh();
      return result;
    } catch (error) {
      settle(running);
      await refresh().catch((readError: Error) =>
        options.log?.(`accounts could not be read again: ${readError.message}`),
      );
      throw error;
    }
  };
  const settle = (running: Promise<unknown>) => {
    if (pending.delete(running)) finished += 1;
  };
  const applyLocally = (id: string, change: (record: AccountRecord) => AccountRecord) => {
    records = records.map((record) => (record.id === id ? change(record) : record));
    version += 1;
  };
  const get = async (id: string) => {
    const row = await engine.get<AccountRow>('SELECT * FROM accounts WHERE id = ?', [id]);
    return row ? fromRow(row) : null;
  };

  await refresh();
  // PostgreSQL pushes other instances' changes: the snapshot follows without waiting for a request.
  engine.onChange((table) => {
    if (table !== null && table !== 'accounts') return;
    refresh().catch((error: Error) =>
      options.log?.(`accounts could not be read again: ${error.message}`),
    );
  });

  return {
    list: read,
    get,
    async find(idOrName) {
      const byId = await get(idOrName);
      if (byId) return byId;
      const row = await engine.get<AccountRow>('SELECT * FROM accounts WHERE name = ?', [idOrName]);
      return row ? fromRow(row) : null;
    },
    async create(input) {
      const id = `acct_${randomBytes(8).toString('hex')}`;
      await write(() =>
        engine.run(
          `INSERT INTO accounts (id, name, kind, tier, group_name, capacity, enabled, model_map, max_pixels,
             base_url, issuer, bridge_model, upstream_account_id, secret_name, created_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
          [
            id,
            input.name,
            input.kind,
            input.tier,
            input.groupName,
            input.capacity,
            input.enabled ? 1 : 0,
            JSON.stringify(input.modelMap),
            input.maxPixels,
            input.baseUrl,
            input.issuer,
            input.bridgeModel,
            input.upstreamAccountId,
            input.secretName,
            clock(),
          ],
        ),
      );
      return (await get(id))!;
    },
    async update(id, patch) {
      const entries = Object.entries(patch).filter(([, v]) => v !== undefined) as Array<
        [keyof AccountPatch, unknown]
      >;
      if (entries.length === 0) return get(id);
      applyLocally(id, (record) => ({ ...record, ...patch }));
      const sets = entries.map(([k]) => `${COLUMN[k]} = ?`).join(', ');
      const { changes } = await write(() =>
        engine.run(`UPDATE accounts SET ${sets} WHERE id = ?`, [
          ...entries.map(([k, v]) => columnValue(k, v)),
          id,
        ]),
      );
      return changes > 0 ? get(id) : null;
    },
    async setCooldown(id, until, reason, kind) {
      const cooldownKind = until === null ? null : (kind ?? 'usage_limit');
      applyLocally(id, (record) => ({
        ...record,
        cooldownUntil: until,
        cooldownReason: reason,
        cooldownKind,
      }));
      await write(() =>
        engine.run(
          'UPDATE accounts SET cooldown_until = ?, cooldown_reason = ?, cooldown_kind = ? WHERE id = ?',
          [until, reason, cooldownKind, id],
        ),
      );
    },
    async remove(id) {
      const { changes } = await write(() => engine.run('DELETE FROM accounts WHERE id = ?', [id]));
      return changes > 0;
    },
    cached: () => records,
    version: () => version,
    stale: () => engine.changeStamp('accounts') !== stamp,
    refresh,
  };
}
