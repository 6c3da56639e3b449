import { describe, expect, it } from 'vitest';
import type { SqlEngine, SqlQueries } from '../storage/engine';
import { ENGINES, testStorage } from '../storage/testing';
import { commitGroups, type GroupedWrite } from './commitGroup';

/** The engine, counting the transactions it opens. */
function counting(engine: SqlEngine): { engine: SqlEngine; transactions: () => number } {
  let transactions = 0;
  return {
    engine: {
      ...engine,
      transaction: (fn) => {
        transactions += 1;
        return engine.transaction(fn);
      },
    },
    transactions: () => transactions,
  };
}

/** A pending row's upsert, as the usage repository writes one (only the columns that matter). */
const pending = (requestId: string): GroupedWrite<string> => ({
  atomic: false,
  async write(q: SqlQueries) {
    await q.run(
      `INSERT INTO usage_pending (request_id, record, attempts, updated_at, owner_pid, owner_run, lease_until)
       VALUES (?, '{}', 1, 0, 0, 'run', 0)`,
      [requestId],
    );
    return requestId;
  },
});

const rows = (engine: SqlEngine) =>
  engine.all<{ request_id: string }>('SELECT request_id FROM usage_pending ORDER BY request_id');

describe.each(ENGINES)('usage commit groups on %s', (kind) => {
  it('commits the writes told in one turn together, and a lone write as before', async () => {
    const storage = await testStorage(kind);
    const { engine, transactions } = counting(storage.engine);
    const groups = commitGroups(engine);

    const written = await Promise.all(['a', 'b', 'c', 'd'].map((id) => groups.add(pending(id))));
    expect(written).toEqual(['a', 'b', 'c', 'd']);
    expect(transactions()).toBe(1);
    expect(await rows(engine)).toEqual(['a', 'b', 'c', 'd'].map((request_id) => ({ request_id })));

    // Alone: a single statement commits by itself, an atomic write in a transaction of its own.
    await groups.add(pending('e'));
    expect(transactions()).toBe(1);
    await groups.add({ ...pending('f'), atomic: true });
    expect(transactions()).toBe(2);
  });

  it('fails only the write that fails: the others of its group are committed', async () => {
    const { engine } = await testStorage(kind);
    const groups = commitGroups(engine);
    const broken: GroupedWrite<string> = {
      atomic: true,
      async write(q) {
        await pending('x').write(q);
        throw new Error('a record that cannot be written');
      },
    };
    const outcomes = await Promise.allSettled([
      groups.add(pending('a')),
      groups.add(broken),
      groups.add(pending('b')),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    // The broken write's own statement was rolled back with it.
    expect(await rows(engine)).toEqual([{ request_id: 'a' }, { request_id: 'b' }]);
  });
});
