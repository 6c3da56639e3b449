import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { numberPlaceholders } from './placeholders';
import { ENGINES, testStorage } from './testing';

describe.each(ENGINES)('the storage port on %s', (kind) => {
  const scratch = async () => {
    const { engine, connect } = await testStorage(kind, { migrated: false });
    await engine.exec(
      `CREATE TABLE t (k TEXT PRIMARY KEY, n BIGINT NOT NULL, b BYTEA)`.replace(
        'BYTEA',
        kind === 'sqlite' ? 'BLOB' : 'BYTEA',
      ),
    );
    return { engine, connect };
  };

  it('binds ? parameters and reads rows, numbers as numbers and bytes as Buffers', async () => {
    const { engine } = await scratch();
    expect(
      await engine.run('INSERT INTO t (k, n, b) VALUES (?, ?, ?)', [
        'a',
        2 ** 40,
        Buffer.from([1, 2]),
      ]),
    ).toEqual({ changes: 1 });
    await engine.run('INSERT INTO t (k, n) VALUES (?, ?)', ['b', 5]);
    expect(await engine.get('SELECT k, n, b FROM t WHERE k = ?', ['a'])).toEqual({
      k: 'a',
      n: 2 ** 40,
      b: Buffer.from([1, 2]),
    });
    expect(await engine.get('SELECT k FROM t WHERE k = ?', ['zzz'])).toBeUndefined();
    // COUNT is BIGINT and SUM of BIGINT is NUMERIC on PostgreSQL: both come back as numbers.
    expect(await engine.get('SELECT COUNT(*) AS c, SUM(n) AS s FROM t')).toEqual({
      c: 2,
      s: 2 ** 40 + 5,
    });
    expect(await engine.all("SELECT k FROM t WHERE k <> '?' ORDER BY k")).toEqual([
      { k: 'a' },
      { k: 'b' },
    ]);
    expect(await engine.run('UPDATE t SET n = n + 1')).toEqual({ changes: 2 });
    expect(await engine.all('DELETE FROM t WHERE k = ? RETURNING n', ['b'])).toEqual([{ n: 6 }]);
  });

  it('rejects (never throws at the caller) on a bad statement', async () => {
    const { engine } = await scratch();
    const call = engine.get('SELECT nope FROM t');
    await expect(call).rejects.toThrow(/nope/);
  });

  it('commits a transaction when its function resolves and rolls it back when it throws', async () => {
    const { engine, connect } = await scratch();
    const other = await connect();
    await engine.transaction(async (tx) => {
      await tx.run('INSERT INTO t (k, n) VALUES (?, ?)', ['kept', 1]);
    });
    await expect(
      engine.transaction(async (tx) => {
        await tx.run('INSERT INTO t (k, n) VALUES (?, ?)', ['lost', 1]);
        throw new Error('changed my mind');
      }),
    ).rejects.toThrow('changed my mind');
    expect(await other.all('SELECT k FROM t ORDER BY k')).toEqual([{ k: 'kept' }]);
  });

  it("keeps other callers' statements out of an open transaction", async () => {
    const { engine } = await scratch();
    let inside!: () => void;
    const entered = new Promise<void>((resolve) => (inside = resolve));
    let finish!: () => void;
    const finished = new Promise<void>((resolve) => (finish = resolve));
    const tx = engine
      .transaction(async (t) => {
        await t.run('INSERT INTO t (k, n) VALUES (?, ?)', ['tx', 1]);
        inside();
        await finished;
        throw new Error('rolled back');
      })
      .catch((error: Error) => error.message);
    await entered;
    // Written while the transaction is open: it must survive the rollback.
    const outside = engine.run('INSERT INTO t (k, n) VALUES (?, ?)', ['outside', 1]);
    finish();
    expect(await tx).toBe('rolled back');
    await outside;
    expect(await engine.all('SELECT k FROM t')).toEqual([{ k: 'outside' }]);
  });
});

describe('numberPlaceholders', () => {
  it('numbers each ? outside literals, quoted names and comments', () => {
    expect(
      numberPlaceholders(
        `SELECT '?', "a?" FROM t -- ?\nWHERE x = ? /* ? */ AND y = 'it''s ?' AND z = ?`,
      ),
    ).toBe(`SELECT '?', "a?" FROM t -- ?\nWHERE x = $1 /* ? */ AND y = 'it''s ?' AND z = $2`);
  });

  it('numbers placeholders 1..n in order and changes nothing else', () => {
    const piece = fc.oneof(
      fc.constant('?'),
      fc.stringMatching(/^[a-z =,()]{1,8}$/),
      fc.stringMatching(/^'([^']|'')*'$/),
      fc.stringMatching(/^"[^"]*"$/),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 30 }), (pieces) => {
        const sql = pieces.join(' ');
        const placeholders = pieces.filter((p) => p === '?').length;
        let n = 0;
        const expected = pieces.map((p) => (p === '?' ? `$${++n}` : p)).join(' ');
        expect(numberPlaceholders(sql)).toBe(expected);
        expect(n).toBe(placeholders);
      }),
    );
  });
});

describe('change notices on PostgreSQL', () => {
  it("moves another engine's stamp when a change is announced, at commit", async () => {
    const { engine, connect } = await testStorage('postgres', { migrated: false });
    const other = await connect();
    const before = other.changeStamp('settings');
    const pricesBefore = other.changeStamp('prices');
    const noticed = new Promise<string | null>((resolve) => other.onChange(resolve));
    await engine.transaction(async (tx) => {
      await tx.announceChange('settings');
      // Not before the commit: a reader must find the change once it hears of it.
      expect(other.changeStamp('settings')).toBe(before);
    });
    // The notice says what changed: only that table's stamp moves.
    expect(await noticed).toBe('settings');
    expect(other.changeStamp('settings')).toBeGreaterThan(before);
    expect(other.changeStamp('prices')).toBe(pricesBefore);
  });

  it('moves the stamp when its listening connection is lost, since a notice may be missed', async () => {
    const { engine, connect } = await testStorage('postgres', { migrated: false });
    const other = await connect();
    const before = engine.changeStamp('settings');
    const pricesBefore = engine.changeStamp('prices');
    const noticed = new Promise<string | null>((resolve) => engine.onChange(resolve));
    // Ends this database's listening connections (both engines'), as a server restart would.
    await other.get(
      `SELECT COUNT(pg_terminate_backend(pid)) AS n FROM pg_stat_activity
       WHERE datname = current_database() AND query LIKE 'LISTEN atelier_changes%'`,
    );
    // Any table may have changed unheard: every stamp moves.
    expect(await noticed).toBeNull();
    expect(engine.changeStamp('settings')).toBeGreaterThan(before);
    expect(engine.changeStamp('prices')).toBeGreaterThan(pricesBefore);
  });
});
