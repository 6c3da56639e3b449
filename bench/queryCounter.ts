import { createRequire } from 'node:module';
import type pg from 'pg';
import type { QueryCounts } from './protocol';

export interface QueryCounter {
  read(): QueryCounts;
}

/** A statement's text as counted: whitespace collapsed, so one statement is one key. */
export function statementKey(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/**
 * Counts every statement any pg client in this process sends: one `Client.query` call is one
 * round trip to the server (the engine's pool and its LISTEN connection use pg's Client; a pool's
 * own `query` goes through it). The gateway child calls this before it creates the gateway, on
 * the same pg module the engine loads (storage/postgresEngine.ts resolves it the same way), so
 * the gateway's code is measured unchanged.
 */
export function countPgQueries(): QueryCounter {
  const pgModule = createRequire(import.meta.url)('pg') as typeof pg;
  const byStatement = new Map<string, number>();
  let total = 0;
  const proto = pgModule.Client.prototype as unknown as {
    query: (this: unknown, config: unknown, ...rest: unknown[]) => unknown;
  };
  const original = proto.query;
  proto.query = function countedQuery(this: unknown, config: unknown, ...rest: unknown[]) {
    const text =
      typeof config === 'string'
        ? config
        : typeof config === 'object' && config !== null && 'text' in config
          ? String((config as { text: unknown }).text)
          : '(submittable)';
    const key = statementKey(text);
    total += 1;
    byStatement.set(key, (byStatement.get(key) ?? 0) + 1);
    return original.call(this, config, ...rest);
  };
  return { read: () => ({ total, byStatement: Object.fromEntries(byStatement) }) };
}

/** Statements sent between two readings, most frequent first. */
export function countsBetween(
  before: QueryCounts,
  after: QueryCounts,
): { total: number; byStatement: Array<{ statement: string; count: number }> } {
  const byStatement = Object.entries(after.byStatement)
    .map(([statement, count]) => ({
      statement,
      count:
        count - (Object.hasOwn(before.byStatement, statement) ? before.byStatement[statement]! : 0),
    }))
    .filter((s) => s.count > 0)
    .sort((a, b) => b.count - a.count || a.statement.localeCompare(b.statement));
  return { total: after.total - before.total, byStatement };
}
