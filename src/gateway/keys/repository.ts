import { invalidParam } from '../core/errors';
import {
  digestsEqual,
  generateApiKey,
  generateKeyId,
  hashApiKey,
  keyDisplayPrefix,
  looksLikeApiKey,
} from './apiKeys';
import { applyLimits, NO_LIMITS, type KeyLimits, type KeyLimitsPatch } from '../limits/keyLimits';
import type { SqlEngine } from '../storage/engine';

export type ApiKeyStatus = 'active' | 'disabled' | 'deleted';

/** A key as everyone but its owner sees it: never the plaintext, never the hash. */
export interface ApiKeyRecord extends KeyLimits {
  id: string;
  name: string;
  group: string;
  /** First 8 characters after `atl_`, for display as `atl_AbCd1234…` (see maskedKey). */
  prefix: string;
  status: ApiKeyStatus;
  createdAt: number;
  lastUsedAt: number | null;
  /** Requests this key may have in flight at once; null = no per-key cap. */
  concurrencyLimit: number | null;
  /** The key opted into the quality/size fallback ladder (spec 7.3). */
  fallbackLadder: boolean;
}

export interface NewApiKey extends KeyLimitsPatch {
  name: string;
  group?: string;
  concurrencyLimit?: number | null;
  fallbackLadder?: boolean;
}

export type ApiKeyPatch = Partial<NewApiKey>;

export interface KeysRepository {
  /** `key` is the plaintext: return it to the user once; it cannot be recovered afterwards. */
  create(input: NewApiKey): Promise<{ key: string; record: ApiKeyRecord }>;
  /** Oldest first. Deleted keys only on request (usage history still names them). */
  list(opts?: { includeDeleted?: boolean }): Promise<ApiKeyRecord[]>;
  /** Any key, deleted ones included, so usage rows can always show their key's name. */
  get(id: string): Promise<ApiKeyRecord | null>;
  /** null for an unknown or deleted key. */
  update(id: string, patch: ApiKeyPatch): Promise<ApiKeyRecord | null>;
  /** null for an unknown or deleted key: a deleted key never comes back. */
  setStatus(id: string, status: 'active' | 'disabled'): Promise<ApiKeyRecord | null>;
  /** Soft delete; false for an unknown or already deleted key. */
  remove(id: string): Promise<boolean>;
  /** The key's record when `presented` is an active key, else null. */
  authenticate(presented: string): Promise<ApiKeyRecord | null>;
  /** Records use, at most once a minute per key; resolves to whether it wrote. */
  touch(id: string, now: number): Promise<boolean>;
}

interface KeyRow {
  id: string;
  name: string;
  group_name: string;
  prefix: string;
  hash: Buffer;
  status: ApiKeyStatus;
  created_at: number;
  last_used_at: number | null;
  concurrency_limit: number | null;
  fallback_ladder: number;
  budget_micros: number | null;
  budget_period: KeyLimits['budgetPeriod'];
  rpm_limit: number | null;
  images_per_day: number | null;
  expires_at: number | null;
}

const MAX_LABEL_LENGTH = 100;
/** last_used_at is precise to a minute: one write per key per minute, not one per request. */
const TOUCH_INTERVAL_MS = 60_000;
const PUBLIC_COLUMNS =
  'id, name, group_name, prefix, status, created_at, last_used_at, concurrency_limit, fallback_ladder, ' +
  'budget_micros, budget_period, rpm_limit, images_per_day, expires_at';

const INSERT = `INSERT INTO api_keys (id, name, group_name, prefix, hash, status, created_at, concurrency_limit,
    fallback_ladder, budget_micros, budget_period, rpm_limit, images_per_day, expires_at)
  VALUES (?, ?, ?, ?, ?, 'active', ?, ?, ?, ?, ?, ?, ?, ?)`;
const SELECT_ONE = `SELECT ${PUBLIC_COLUMNS} FROM api_keys WHERE id = ?`;
const SELECT_LIVE = `SELECT ${PUBLIC_COLUMNS} FROM api_keys WHERE status != 'deleted' ORDER BY created_at, id`;
const SELECT_ALL = `SELECT ${PUBLIC_COLUMNS} FROM api_keys ORDER BY created_at, id`;
const SELECT_BY_HASH = `SELECT ${PUBLIC_COLUMNS}, hash FROM api_keys WHERE hash = ?`;
const UPDATE_LABELS = `UPDATE api_keys SET name = ?, group_name = ?, concurrency_limit = ?,
    fallback_ladder = ?, budget_micros = ?, budget_period = ?, rpm_limit = ?, images_per_day = ?,
    expires_at = ?
  WHERE id = ? AND status != 'deleted'`;
const UPDATE_STATUS = `UPDATE api_keys SET status = ? WHERE id = ? AND status != 'deleted'`;
// The WHERE repeats the once-a-minute rule so that two processes (or instances) agree.
const UPDATE_LAST_USED = `UPDATE api_keys SET last_used_at = ?
  WHERE id = ? AND (last_used_at IS NULL OR last_used_at <= ?)`;

export function createKeysRepository(
  engine: SqlEngine,
  clock: () => number = Date.now,
): KeysRepository {
  /** Last touch per key in this process: skips even the UPDATE statement (and its lock) between. */
  const lastTouched = new Map<string, number>();

  const get = async (id: string): Promise<ApiKeyRecord | null> => {
    const row = await engine.get<KeyRow>(SELECT_ONE, [id]);
    return row ? toRecord(row) : null;
  };

  return {
    async create(input) {
      const key = generateApiKey();
      const record: ApiKeyRecord = {
        id: generateKeyId(),
        name: label('name', input.name),
        group: label('group', input.group ?? 'default'),
        prefix: keyDisplayPrefix(key),
        status: 'active',
        createdAt: clock(),
        lastUsedAt: null,
        concurrencyLimit: concurrency(input.concurrencyLimit ?? null),
        fallbackLadder: input.fallbackLadder ?? false,
        ...applyLimits(NO_LIMITS, input),
      };
      await engine.run(INSERT, [
        record.id,
        record.name,
        record.group,
        record.prefix,
        hashApiKey(key),
        record.createdAt,
        record.concurrencyLimit,
        record.fallbackLadder ? 1 : 0,
        ...limitColumns(record),
      ]);
      return { key, record };
    },

    async list(opts = {}) {
      const rows = await engine.all<KeyRow>(opts.includeDeleted ? SELECT_ALL : SELECT_LIVE);
      return rows.map(toRecord);
    },

    get,

    async update(id, patch) {
      const current = await get(id);
      if (!current || current.status === 'deleted') return null;
      await engine.run(UPDATE_LABELS, [
        patch.name === undefined ? current.name : label('name', patch.name),
        patch.group === undefined ? current.group : label('group', patch.group),
        patch.concurrencyLimit === undefined
          ? current.concurrencyLimit
          : concurrency(patch.concurrencyLimit),
        (patch.fallbackLadder ?? current.fallbackLadder) ? 1 : 0,
        ...limitColumns(applyLimits(current, patch)),
        id,
      ]);
      return get(id);
    },

    async setStatus(id, status) {
      return (await engine.run(UPDATE_STATUS, [status, id])).changes === 1 ? get(id) : null;
    },

    async remove(id) {
      lastTouched.delete(id);
      return (await engine.run(UPDATE_STATUS, ['deleted', id])).changes === 1;
    },

    async authenticate(presented) {
      if (!looksLikeApiKey(presented)) return null;
      const digest = hashApiKey(presented);
      const row = await engine.get<KeyRow>(SELECT_BY_HASH, [digest]);
      // The indexed lookup compares SHA-256 digests, so its timing tells an attacker nothing
      // about any key; the constant-time comparison makes the match explicit and keeps it so if
      // the lookup ever changes (a prefix index, a cache).
      if (!row || !digestsEqual(row.hash, digest)) return null;
      return row.status === 'active' ? toRecord(row) : null;
    },

    async touch(id, now) {
      const last = lastTouched.get(id);
      if (last !== undefined && now - last < TOUCH_INTERVAL_MS) return false;
      lastTouched.set(id, now);
      const { changes } = await engine.run(UPDATE_LAST_USED, [now, id, now - TOUCH_INTERVAL_MS]);
      return changes === 1;
    },
  };
}

function toRecord(row: KeyRow): ApiKeyRecord {
  return {
    id: row.id,
    name: row.name,
    group: row.group_name,
    prefix: row.prefix,
    status: row.status,
    createdAt: row.created_at,
    lastUsedAt: row.last_used_at,
    concurrencyLimit: row.concurrency_limit,
    fallbackLadder: row.fallback_ladder === 1,
    budgetMicros: row.budget_micros,
    budgetPeriod: row.budget_period,
    rpmLimit: row.rpm_limit,
    imagesPerDay: row.images_per_day,
    expiresAt: row.expires_at,
  };
}

/** budget_micros, budget_period, rpm_limit, images_per_day, expires_at: in the statements' order. */
function limitColumns(limits: KeyLimits) {
  return [
    limits.budgetMicros,
    limits.budgetPeriod,
    limits.rpmLimit,
    limits.imagesPerDay,
    limits.expiresAt,
  ] as const;
}

/** Names and groups: trimmed, 1..100 characters, no control characters (they show in tables). */
function label(field: 'name' | 'group', value: string): string {
  const trimmed = typeof value === 'string' ? value.trim() : '';
  const characters = [...trimmed].length; // code points, so an emoji counts as one
  if (characters < 1 || characters > MAX_LABEL_LENGTH) {
    throw invalidParam(field, `Key ${field} must be 1 to ${MAX_LABEL_LENGTH} characters long.`);
  }
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(trimmed)) {
    throw invalidParam(field, `Key ${field} must not contain control characters.`);
  }
  return trimmed;
}

function concurrency(value: number | null): number | null {
  if (value === null) return null;
  if (!Number.isInteger(value) || value < 1 || value > 1000) {
    throw invalidParam(
      'concurrency_limit',
      'Concurrency limit must be a whole number from 1 to 1000, or none.',
    );
  }
  return value;
}
