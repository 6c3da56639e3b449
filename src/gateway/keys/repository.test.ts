import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../core/errors';
import { hashApiKey } from './apiKeys';
import { sqliteEngine } from '../storage/sqliteEngine';
import { createKeysRepository } from './repository';
import { ENGINES, tempDatabase, testStorage } from '../storage/testing';

describe.each(ENGINES)('keys repository on %s', (kind) => {
  it('creates a key that authenticates, returning the plaintext once and a record', async () => {
    const { engine } = await testStorage(kind);
    const keys = createKeysRepository(engine, () => 1_700_000_000_000);
    const { key, record } = await keys.create({ name: '  CI bot ', group: 'builds' });
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
    expect(await keys.authenticate(key)).toEqual(record);
    expect(await keys.get(record.id)).toEqual(record);
    expect((await keys.create({ name: 'x' })).record.group).toBe('default');
  });

  it('rejects unknown, altered and malformed keys', async () => {
    const { engine } = await testStorage(kind);
    const keys = createKeysRepository(engine);
    const { key } = await keys.create({ name: 'a' });
    const last = key.at(-1) === 'A' ? 'B' : 'A';
    expect(await keys.authenticate(key.slice(0, -1) + last)).toBeNull();
    expect(
      await keys.authenticate((await keys.create({ name: 'b' })).key.replace('atl_', 'sk_')),
    ).toBeNull();
    expect(await keys.authenticate('')).toBeNull();
    expect(await keys.authenticate(`Bearer ${key}`)).toBeNull();
    expect(await keys.authenticate('atl_' + '0'.repeat(43))).toBeNull();
  });

  it('disables, enables and soft-deletes; only active keys authenticate', async () => {
    const { engine } = await testStorage(kind);
    const keys = createKeysRepository(engine);
    const { key, record } = await keys.create({ name: 'app' });

    expect((await keys.setStatus(record.id, 'disabled'))?.status).toBe('disabled');
    expect(await keys.authenticate(key)).toBeNull();
    expect((await keys.setStatus(record.id, 'active'))?.status).toBe('active');
    expect((await keys.authenticate(key))?.id).toBe(record.id);

    expect(await keys.remove(record.id)).toBe(true);
    expect(await keys.authenticate(key)).toBeNull();
    // The row stays so usage history keeps the key's name, but it never comes back.
    expect(await keys.get(record.id)).toMatchObject({ name: 'app', status: 'deleted' });
    expect(await keys.setStatus(record.id, 'active')).toBeNull();
    expect(await keys.remove(record.id)).toBe(false);
    expect(await keys.update(record.id, { name: 'again' })).toBeNull();
    expect(await keys.authenticate(key)).toBeNull();
    expect(await engine.get('SELECT COUNT(*) AS n FROM api_keys')).toEqual({ n: 1 });
  });

  it('answers null or false for an unknown id', async () => {
    const { engine } = await testStorage(kind);
    const keys = createKeysRepository(engine);
    expect(await keys.get('key_0000000000000000')).toBeNull();
    expect(await keys.setStatus('key_0000000000000000', 'disabled')).toBeNull();
    expect(await keys.remove('key_0000000000000000')).toBe(false);
    expect(await keys.update('key_0000000000000000', { name: 'x' })).toBeNull();
  });

  it('lists oldest first, hides deleted keys unless asked, and never exposes hashes', async () => {
    const { engine } = await testStorage(kind);
    let now = 1000;
    const keys = createKeysRepository(engine, () => now++);
    const a = (await keys.create({ name: 'a' })).record;
    const b = (await keys.create({ name: 'b' })).record;
    const c = (await keys.create({ name: 'c' })).record;
    await keys.remove(b.id);
    expect((await keys.list()).map((r) => r.id)).toEqual([a.id, c.id]);
    expect((await keys.list({ includeDeleted: true })).map((r) => r.id)).toEqual([
      a.id,
      b.id,
      c.id,
    ]);
    for (const record of await keys.list({ includeDeleted: true })) {
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

  it('validates names, groups and concurrency limits with clear errors', async () => {
    const { engine } = await testStorage(kind);
    const keys = createKeysRepository(engine);
    const failure = async (fn: () => Promise<unknown>) => {
      try {
        await fn();
      } catch (error) {
        return error;
      }
      throw new Error('expected a failure');
    };
    const empty = await failure(() => keys.create({ name: '   ' }));
    expect(empty).toBeInstanceOf(ApiError);
    expect(empty).toMatchObject({
      status: 400,
      param: 'name',
      message: 'Key name must be 1 to 100 characters long.',
    });
    expect(await failure(() => keys.create({ name: 'x'.repeat(101) }))).toMatchObject({
      param: 'name',
    });
    expect((await keys.create({ name: 'x'.repeat(100) })).record.name).toHaveLength(100);
    expect((await keys.create({ name: '🎨'.repeat(100) })).record.name).toBe('🎨'.repeat(100));
    expect(await failure(() => keys.create({ name: 'a\nb' }))).toMatchObject({
      param: 'name',
      message: /control/,
    });
    expect(await failure(() => keys.create({ name: 'a', group: '' }))).toMatchObject({
      param: 'group',
    });
    expect(await failure(() => keys.create({ name: 'a', concurrencyLimit: 0 }))).toMatchObject({
      param: 'concurrency_limit',
    });
    expect(await failure(() => keys.create({ name: 'a', concurrencyLimit: 1.5 }))).toMatchObject({
      param: 'concurrency_limit',
    });
    expect((await keys.create({ name: 'a', concurrencyLimit: 3 })).record.concurrencyLimit).toBe(3);
    // Nothing invalid reached the table.
    expect(await engine.get('SELECT COUNT(*) AS n FROM api_keys')).toEqual({ n: 3 });
  });

  it('updates name, group and concurrency limit of a live key', async () => {
    const { engine } = await testStorage(kind);
    const keys = createKeysRepository(engine);
    const { key, record } = await keys.create({ name: 'old', concurrencyLimit: 2 });
    expect(await keys.update(record.id, { name: 'new', group: 'team' })).toMatchObject({
      name: 'new',
      group: 'team',
      concurrencyLimit: 2,
    });
    expect((await keys.update(record.id, { concurrencyLimit: null }))?.concurrencyLimit).toBeNull();
    expect((await keys.authenticate(key))?.name).toBe('new');
  });

  it('touches last_used_at at most once a minute per key', async () => {
    const { engine } = await testStorage(kind);
    const keys = createKeysRepository(engine);
    const a = (await keys.create({ name: 'a' })).record;
    const b = (await keys.create({ name: 'b' })).record;
    const t0 = 1_700_000_000_000;
    expect(await keys.touch(a.id, t0)).toBe(true);
    expect(await keys.touch(a.id, t0 + 1_000)).toBe(false);
    expect(await keys.touch(a.id, t0 + 59_999)).toBe(false);
    expect(await keys.touch(b.id, t0 + 1_000)).toBe(true);
    expect((await keys.get(a.id))?.lastUsedAt).toBe(t0);
    expect(await keys.touch(a.id, t0 + 60_000)).toBe(true);
    expect((await keys.get(a.id))?.lastUsedAt).toBe(t0 + 60_000);
  });

  it('keeps the once-a-minute rule across processes (or instances) sharing the database', async () => {
    const { engine, connect } = await testStorage(kind);
    const other = await connect();
    const id = (await createKeysRepository(engine).create({ name: 'shared' })).record.id;
    expect(await createKeysRepository(engine).touch(id, 100_000)).toBe(true);
    // A second repository (another process) has no memory of that touch; the row has.
    expect(await createKeysRepository(other).touch(id, 130_000)).toBe(false);
    expect(await createKeysRepository(other).touch(id, 160_000)).toBe(true);
    expect((await createKeysRepository(engine).get(id))?.lastUsedAt).toBe(160_000);
  });

  it('stores only the SHA-256 of a key: the plaintext is in no column', async () => {
    const { engine } = await testStorage(kind);
    const keys = createKeysRepository(engine);
    const created = [];
    for (let i = 0; i < 3; i++) created.push(await keys.create({ name: `k${i}` }));
    for (const { key, record } of created) {
      const raw = (await engine.get('SELECT * FROM api_keys WHERE id = ?', [record.id])) as Record<
        string,
        unknown
      >;
      expect(raw.hash).toEqual(hashApiKey(key));
      expect(raw.prefix).toBe(key.slice(4, 12));
      for (const value of Object.values(raw)) {
        if (typeof value === 'string') expect(value.includes(key.slice(4))).toBe(false);
      }
    }
  });
});

describe('keys repository on a SQLite file', () => {
  it('leaves the plaintext of a key nowhere in the database files', async () => {
    const { db, file } = tempDatabase();
    const keys = createKeysRepository(sqliteEngine(db));
    const created = [];
    for (let i = 0; i < 3; i++) created.push(await keys.create({ name: `k${i}` }));

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

describe.each(ENGINES)('key limits on %s', (kind) => {
  it('stores limits, patches them one at a time, and clears a budget with its period', async () => {
    const { engine } = await testStorage(kind);
    const keys = createKeysRepository(engine);
    const { record } = await keys.create({ name: 'limited', budgetMicros: 5_000_000, rpmLimit: 3 });
    expect(record).toMatchObject({ budgetMicros: 5_000_000, budgetPeriod: 'month', rpmLimit: 3 });
    expect(await keys.update(record.id, { imagesPerDay: 9, budgetPeriod: 'total' })).toMatchObject({
      budgetMicros: 5_000_000,
      budgetPeriod: 'total',
      rpmLimit: 3,
      imagesPerDay: 9,
    });
    expect(await keys.update(record.id, { budgetMicros: null })).toMatchObject({
      budgetMicros: null,
      budgetPeriod: null,
      imagesPerDay: 9,
    });
  });

  it('names the parameter of a limit it refuses, and changes nothing', async () => {
    const { engine } = await testStorage(kind);
    const keys = createKeysRepository(engine);
    const { record } = await keys.create({ name: 'k' });
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
      await expect(keys.update(record.id, patch)).rejects.toThrow(
        expect.objectContaining({ param }),
      );
    }
    expect(await keys.get(record.id)).toEqual(record);
  });
});
