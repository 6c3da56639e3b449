import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../core/errors';
import { hashApiKey } from './apiKeys';
import { openDatabase } from '../storage/db';
import { createKeysRepository } from './repository';
import { tempDatabase } from '../storage/testing';

describe('keys repository', () => {
  it('creates a key that authenticates, returning the plaintext once and a record', () => {
    const { db } = tempDatabase();
    const keys = createKeysRepository(db, () => 1_700_000_000_000);
    const { key, record } = keys.create({ name: '  CI bot ', group: 'builds' });
    expect(key).toMatch(/^atl_[0-9A-Za-z]{43}$/);
    expect(record).toEqual({
      id: expect.stringMatching(/^key_[0-9a-f]{16}$/),
      name: 'CI bot',
      group: 'builds',
      prefix: key.slice(4, 12),
      status: 'active',
      createdAt: 1_700_000_000_000,
      lastUsedAt: null,
      concurrencyLimit: null,
      fallbackLadder: false,
      budgetMicros: null,
      budgetPeriod: null,
      rpmLimit: null,
      imagesPerDay: null,
      expiresAt: null,
    });
    expect(keys.authenticate(key)).toEqual(record);
    expect(keys.get(record.id)).toEqual(record);
    expect(keys.create({ name: 'x' }).record.group).toBe('default');
  });

  it('rejects unknown, altered and malformed keys', () => {
    const { db } = tempDatabase();
    const keys = createKeysRepository(db);
    const { key } = keys.create({ name: 'a' });
    const last = key.at(-1) === 'A' ? 'B' : 'A';
    expect(keys.authenticate(key.slice(0, -1) + last)).toBeNull();
    expect(keys.authenticate(keys.create({ name: 'b' }).key.replace('atl_', 'sk_'))).toBeNull();
    expect(keys.authenticate('')).toBeNull();
    expect(keys.authenticate(`Bearer ${key}`)).toBeNull();
    expect(keys.authenticate('atl_' + '0'.repeat(43))).toBeNull();
  });

  it('disables, enables and soft-deletes; only active keys authenticate', () => {
    const { db } = tempDatabase();
    const keys = createKeysRepository(db);
    const { key, record } = keys.create({ name: 'app' });

    expect(keys.setStatus(record.id, 'disabled')?.status).toBe('disabled');
    expect(keys.authenticate(key)).toBeNull();
    expect(keys.setStatus(record.id, 'active')?.status).toBe('active');
    expect(keys.authenticate(key)?.id).toBe(record.id);

    expect(keys.remove(record.id)).toBe(true);
    expect(keys.authenticate(key)).toBeNull();
    // The row stays so usage history keeps the key's name, but it never comes back.
    expect(keys.get(record.id)).toMatchObject({ name: 'app', status: 'deleted' });
    expect(keys.setStatus(record.id, 'active')).toBeNull();
    expect(keys.remove(record.id)).toBe(false);
    expect(keys.update(record.id, { name: 'again' })).toBeNull();
    expect(keys.authenticate(key)).toBeNull();
    expect(db.prepare('SELECT COUNT(*) FROM api_keys').pluck().get()).toBe(1);
  });

  it('answers null or false for an unknown id', () => {
    const { db } = tempDatabase();
    const keys = createKeysRepository(db);
    expect(keys.get('key_0000000000000000')).toBeNull();
    expect(keys.setStatus('key_0000000000000000', 'disabled')).toBeNull();
    expect(keys.remove('key_0000000000000000')).toBe(false);
    expect(keys.update('key_0000000000000000', { name: 'x' })).toBeNull();
  });

  it('lists oldest first, hides deleted keys unless asked, and never exposes hashes', () => {
    const { db } = tempDatabase();
    let now = 1000;
    const keys = createKeysRepository(db, () => now++);
    const a = keys.create({ name: 'a' }).record;
    const b = keys.create({ name: 'b' }).record;
    const c = keys.create({ name: 'c' }).record;
    keys.remove(b.id);
    expect(keys.list().map((r) => r.id)).toEqual([a.id, c.id]);
    expect(keys.list({ includeDeleted: true }).map((r) => r.id)).toEqual([a.id, b.id, c.id]);
    for (const record of keys.list({ includeDeleted: true })) {
      expect(Object.keys(record).sort()).toEqual(
        [
          'concurrencyLimit',
          'createdAt',
          'fallbackLadder',
          'group',
          'id',
          'lastUsedAt',
          'name',
          'prefix',
          'status',
          'budgetMicros',
          'budgetPeriod',
          'rpmLimit',
          'imagesPerDay',
          'expiresAt',
        ].sort(),
      );
    }
  });

  it('validates names, groups and concurrency limits with clear errors', () => {
    const { db } = tempDatabase();
    const keys = createKeysRepository(db);
    const failure = (fn: () => unknown) => {
      try {
        fn();
      } catch (error) {
        return error;
      }
      throw new Error('expected a failure');
    };
    const empty = failure(() => keys.create({ name: '   ' }));
    expect(empty).toBeInstanceOf(ApiError);
    expect(empty).toMatchObject({
      status: 400,
      param: 'name',
      message: 'Key name must be 1 to 100 characters long.',
    });
    expect(failure(() => keys.create({ name: 'x'.repeat(101) }))).toMatchObject({ param: 'name' });
    expect(keys.create({ name: 'x'.repeat(100) }).record.name).toHaveLength(100);
    expect(keys.create({ name: '🎨'.repeat(100) }).record.name).toBe('🎨'.repeat(100));
    expect(failure(() => keys.create({ name: 'a\nb' }))).toMatchObject({
      param: 'name',
      message: /control/,
    });
    expect(failure(() => keys.create({ name: 'a', group: '' }))).toMatchObject({ param: 'group' });
    expect(failure(() => keys.create({ name: 'a', concurrencyLimit: 0 }))).toMatchObject({
      param: 'concurrency_limit',
    });
    expect(failure(() => keys.create({ name: 'a', concurrencyLimit: 1.5 }))).toMatchObject({
      param: 'concurrency_limit',
    });
    expect(keys.create({ name: 'a', concurrencyLimit: 3 }).record.concurrencyLimit).toBe(3);
    // Nothing invalid reached the table.
    expect(db.prepare('SELECT COUNT(*) FROM api_keys').pluck().get()).toBe(3);
  });

  it('updates name, group and concurrency limit of a live key', () => {
    const { db } = tempDatabase();
    const keys = createKeysRepository(db);
    const { key, record } = keys.create({ name: 'old', concurrencyLimit: 2 });
    expect(keys.update(record.id, { name: 'new', group: 'team' })).toMatchObject({
      name: 'new',
      group: 'team',
      concurrencyLimit: 2,
    });
    expect(keys.update(record.id, { concurrencyLimit: null })?.concurrencyLimit).toBeNull();
    expect(keys.authenticate(key)?.name).toBe('new');
  });

  it('touches last_used_at at most once a minute per key', () => {
    const { db } = tempDatabase();
    const keys = createKeysRepository(db);
    const a = keys.create({ name: 'a' }).record;
    const b = keys.create({ name: 'b' }).record;
    const t0 = 1_700_000_000_000;
    expect(keys.touch(a.id, t0)).toBe(true);
    expect(keys.touch(a.id, t0 + 1_000)).toBe(false);
    expect(keys.touch(a.id, t0 + 59_999)).toBe(false);
    expect(keys.touch(b.id, t0 + 1_000)).toBe(true);
    expect(keys.get(a.id)?.lastUsedAt).toBe(t0);
    expect(keys.touch(a.id, t0 + 60_000)).toBe(true);
    expect(keys.get(a.id)?.lastUsedAt).toBe(t0 + 60_000);
  });

  it('keeps the once-a-minute rule across processes sharing the file', () => {
    const { db, file } = tempDatabase();
    const other = openDatabase(file);
    try {
      const id = createKeysRepository(db).create({ name: 'shared' }).record.id;
      expect(createKeysRepository(db).touch(id, 100_000)).toBe(true);
      // A second repository (another process) has no memory of that touch; the row has.
      expect(createKeysRepository(other).touch(id, 130_000)).toBe(false);
      expect(createKeysRepository(other).touch(id, 160_000)).toBe(true);
      expect(createKeysRepository(db).get(id)?.lastUsedAt).toBe(160_000);
    } finally {
      other.close();
    }
  });

  it('stores only the SHA-256 of a key: the plaintext is nowhere in the database files', () => {
    const { db, file } = tempDatabase();
    const keys = createKeysRepository(db);
    const created = Array.from({ length: 3 }, (_, i) => keys.create({ name: `k${i}` }));

    for (const { key, record } of created) {
      const raw = db.prepare('SELECT * FROM api_keys WHERE id = ?').get(record.id) as Record<
        string,
        unknown
      >;
      expect(raw.hash).toEqual(hashApiKey(key));
      expect(raw.prefix).toBe(key.slice(4, 12));
      for (const value of Object.values(raw)) {
        if (typeof value === 'string') expect(value.includes(key.slice(4))).toBe(false);
      }
    }

    db.pragma('wal_checkpoint(TRUNCATE)');
    const bytes = Buffer.concat(
      [file, `${file}-wal`, `${file}-shm`]
        .filter((f) => fs.existsSync(f))
        .map((f) => fs.readFileSync(f)),
    );
    expect(bytes.length).toBeGreaterThan(0);
    for (const { key, record } of created) {
      expect(bytes.includes(key)).toBe(false);
      // Nor any long piece of it beyond the 8 display characters.
      expect(bytes.includes(key.slice(12, 30))).toBe(false);
      expect(bytes.includes(hashApiKey(key))).toBe(true);
      expect(bytes.includes(record.id)).toBe(true);
    }
  });
});

describe('key limits', () => {
  it('stores limits, patches them one at a time, and clears a budget with its period', () => {
    const { db } = tempDatabase();
    const keys = createKeysRepository(db);
    const { record } = keys.create({ name: 'limited', budgetMicros: 5_000_000, rpmLimit: 3 });
    expect(record).toMatchObject({ budgetMicros: 5_000_000, budgetPeriod: 'month', rpmLimit: 3 });
    expect(keys.update(record.id, { imagesPerDay: 9, budgetPeriod: 'total' })).toMatchObject({
      budgetMicros: 5_000_000,
      budgetPeriod: 'total',
      rpmLimit: 3,
      imagesPerDay: 9,
    });
    expect(keys.update(record.id, { budgetMicros: null })).toMatchObject({
      budgetMicros: null,
      budgetPeriod: null,
      imagesPerDay: 9,
    });
  });

  it('names the parameter of a limit it refuses, and changes nothing', () => {
    const { db } = tempDatabase();
    const keys = createKeysRepository(db);
    const { record } = keys.create({ name: 'k' });
    const cases: Array<[Parameters<typeof keys.update>[1], string]> = [
      [{ budgetMicros: 0 }, 'budget_micros'],
      [{ budgetMicros: 1.5 }, 'budget_micros'],
      [{ budgetPeriod: 'day' }, 'budget_period'],
      [{ budgetMicros: 1, budgetPeriod: 'week' as 'day' }, 'budget_period'],
      [{ rpmLimit: -1 }, 'rpm_limit'],
      [{ imagesPerDay: 0 }, 'images_per_day'],
      [{ expiresAt: Number.NaN }, 'expires_at'],
    ];
    for (const [patch, param] of cases) {
      expect(() => keys.update(record.id, patch)).toThrow(expect.objectContaining({ param }));
    }
    expect(keys.get(record.id)).toEqual(record);
  });
});
