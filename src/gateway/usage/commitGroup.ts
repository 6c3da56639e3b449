import type { SqlEngine, SqlQueries } from '../storage/engine';

/** One write of the usage log: a pending row's upsert, or a record with the end of its pending row. */
export interface GroupedWrite<T> {
  /** Its statements must commit together even when it is alone (a record and its pending row). */
  atomic: boolean;
  write(q: SqlQueries): Promise<T>;
}

interface Member {
  write: GroupedWrite<unknown>;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

export interface CommitGroups {
  /** Runs `write` in the next group commit; resolves with its result once that has committed. */
  add<T>(write: GroupedWrite<T>): Promise<T>;
}

/**
 * Group commit for the usage log. Each request writes its log twice (a pending row when it goes
 * upstream, its record when it is over), and on SQLite every commit holds the event loop while
 * its pages reach the write-ahead log (~150-250 us on the VMs measured, more than the rest of the
 * record's work). The writes told during one turn of the event loop are committed together at
 * its end (`setImmediate`): under load, many requests' writes share one commit; alone, a write
 * commits as before (a pending row by itself, a record in its own transaction), one turn later.
 *
 * Each write resolves only once its commit is done, so what waits for a record (the `settled`
 * event: the limits charge, the gallery's confirmation, the count of requests in flight) still
 * waits for it to be durable. Writes commit in the order they were told; a request's writes are
 * told one after another (usage/writer.ts chains them), so they land in its order. When a group
 * fails, each of its writes is tried again alone, in order, so one bad write fails only itself.
 */
export function commitGroups(
  engine: SqlEngine,
  schedule: (run: () => void) => void = setImmediate,
): CommitGroups {
  let waiting: Member[] = [];
  let scheduled = false;

  const alone = (write: GroupedWrite<unknown>) =>
    write.atomic ? engine.transaction((tx) => write.write(tx)) : write.write(engine);

  const flush = async () => {
    scheduled = false;
    const members = waiting;
    waiting = [];
    if (members.length === 1) {
      const [member] = members as [Member];
      await alone(member.write).then(member.resolve, member.reject);
      return;
    }
    let results: unknown[];
    try {
      results = await engine.transaction(async (tx) => {
        const out: unknown[] = [];
        for (const member of members) out.push(await member.write.write(tx));
        return out;
      });
    } catch {
      for (const member of members) await alone(member.write).then(member.resolve, member.reject);
      return;
    }
    members.forEach((member, i) => member.resolve(results[i]));
  };

  return {
    add<T>(write: GroupedWrite<T>): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        waiting.push({ write, resolve: resolve as (value: unknown) => void, reject });
        if (scheduled) return;
        scheduled = true;
        schedule(() => void flush());
      });
    },
  };
}
