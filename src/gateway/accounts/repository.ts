import { randomBytes } from 'node:crypto';
import type { Db } from '../storage/db';
import type { CooldownKind } from '../core/domain';
import type { AccountRecord } from '../core/domain';

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

export interface AccountsRepository {
  list(): AccountRecord[];
  get(id: string): AccountRecord | null;
  /** By id, or by unique name (what people type on the command line). */
  find(idOrName: string): AccountRecord | null;
  create(input: NewAccount): AccountRecord;
  update(id: string, patch: AccountPatch): AccountRecord | null;
  /** `until` null ends the cooldown; the kind says why it rests (usage window unless told). */
  setCooldown(
    id: string,
    until: number | null,
    reason: string | null,
    kind?: CooldownKind | null,
  ): void;
  remove(id: string): boolean;
  /** Bumps whenever any account row changes, so the pool knows when to reload. */
  version(): number;
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

export function createAccountsRepository(
  db: Db,
  clock: () => number = Date.now,
): AccountsRepository {
  const all = db.prepare('SELECT * FROM accounts ORDER BY created_at, id');
  const byId = db.prepare('SELECT * FROM accounts WHERE id = ?');
  const byName = db.prepare('SELECT * FROM accounts WHERE name = ?');
  const insert = db.prepare(`
    INSERT INTO accounts (id, name, kind, tier, group_name, capacity, enabled, model_map, max_pixels, base_url,
      issuer, bridge_model, upstream_account_id, secret_name, created_at)
    VALUES (@id, @name, @kind, @tier, @group_name, @capacity, @enabled, @model_map, @max_pixels, @base_url,
      @issuer, @bridge_model, @upstream_account_id, @secret_name, @created_at)`);
  const cooldown = db.prepare(
    'UPDATE accounts SET cooldown_until = ?, cooldown_reason = ?, cooldown_kind = ? WHERE id = ?',
  );
  const del = db.prepare('DELETE FROM accounts WHERE id = ?');
  // data_version changes when another connection (the CLI) commits; total_changes covers ours.
  const dataVersion = db.prepare('PRAGMA data_version').pluck();
  let localChanges = 0;

  const get = (id: string) => {
    const row = byId.get(id) as AccountRow | undefined;
    return row ? fromRow(row) : null;
  };

  return {
    list: () => (all.all() as AccountRow[]).map(fromRow),
    get,
    find(idOrName) {
      return (
        get(idOrName) ??
        ((row) => (row ? fromRow(row) : null))(byName.get(idOrName) as AccountRow | undefined)
      );
    },
    create(input) {
      const id = `acct_${randomBytes(8).toString('hex')}`;
      insert.run({
        id,
        name: input.name,
        kind: input.kind,
        tier: input.tier,
        group_name: input.groupName,
        capacity: input.capacity,
        enabled: input.enabled ? 1 : 0,
        model_map: JSON.stringify(input.modelMap),
        max_pixels: input.maxPixels,
        base_url: input.baseUrl,
        issuer: input.issuer,
        bridge_model: input.bridgeModel,
        upstream_account_id: input.upstreamAccountId,
        secret_name: input.secretName,
        created_at: clock(),
      });
      localChanges++;
      return get(id)!;
    },
    update(id, patch) {
      const entries = Object.entries(patch).filter(([, v]) => v !== undefined) as Array<
        [keyof AccountPatch, unknown]
      >;
      if (entries.length === 0) return get(id);
      const sets = entries.map(([k]) => `${COLUMN[k]} = ?`).join(', ');
      const values = entries.map(([k, v]) =>
        k === 'enabled' ? (v ? 1 : 0) : k === 'modelMap' ? JSON.stringify(v) : v,
      );
      const info = db
        .prepare(`UPDATE accounts SET ${sets} WHERE id = ?`)
        .run(...(values as Array<string | number | null>), id);
      localChanges++;
      return info.changes > 0 ? get(id) : null;
    },
    setCooldown(id, until, reason, kind) {
      cooldown.run(until, reason, until === null ? null : (kind ?? 'usage_limit'), id);
      localChanges++;
    },
    remove(id) {
      localChanges++;
      return del.run(id).changes > 0;
    },
    version: () => (dataVersion.get() as number) * 1_000_000 + localChanges,
  };
}
