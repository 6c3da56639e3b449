import fs from 'node:fs';
import pg from 'pg';
import { postgresUnavailable, startPostgres } from '../../test/support/postgres';
import { runBlocks, warmUp, type Variant } from '../blocks';
import { checkImagesJson } from '../check';
import type { BenchContext } from '../context';
import { waitQuiet } from '../cpu';
import { startExtraGateway, type ExtraGateway } from '../gateways';
import { timedPost, type Target } from '../http';
import type { QueryCounts } from '../protocol';
import { countsBetween } from '../queryCounter';
import { timeRow, type Row } from '../report';
import { directGeneration, throughGeneration } from '../requests';
import { addedByRound } from '../rounds';
import { distribution } from '../stats';

/** Issue 21: on PostgreSQL, added p50 per request at 1024 within 3 ms of SQLite mode's. */
const POSTGRES_SLACK_MS = 3;
const SIZE = { size: '1024x1024', width: 1024, height: 1024 } as const;
/** As in the paths cases: both gateways keep their images and settle until the gallery is done. */
const QUIET_WINDOW_MS = 1500;
const QUIET_MAX_CPU_MS = 20;
/** How long the PostgreSQL gateway is watched idle: its background statements per second. */
const IDLE_WINDOW_MS = 3000;

type Way = 'direct' | 'sqlite' | 'postgres';

/**
 * An empty database for the gateway, and the server's main process (the parent of the backend
 * that answered): the server's CPU is the benchmark's own, not other load.
 */
async function createDatabase(
  serverUrl: string,
  name: string,
): Promise<{ url: string; serverPid: number }> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  let serverPid: number;
  try {
    await client.query(`CREATE DATABASE ${name}`);
    const row = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    // Read while the backend lives: it exits with the connection.
    const stat = fs.readFileSync(`/proc/${row.rows[0]!.pid}/stat`, 'utf8');
    serverPid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } finally {
    await client.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return { url: url.toString(), serverPid };
}

/** Adds one block's statements to a running sum. */
function addCounts(sum: QueryCounts, before: QueryCounts, after: QueryCounts): void {
  const between = countsBetween(before, after);
  sum.total += between.total;
  for (const { statement, count } of between.byStatement) {
    sum.byStatement[statement] =
      (Object.hasOwn(sum.byStatement, statement) ? sum.byStatement[statement]! : 0) + count;
  }
}

/**
 * The gateway on PostgreSQL beside the same gateway on its SQLite file (issue 21), as installed,
 * 1024x1024 on the API-key path, one at a time without waiting (as the paths cases), direct and
 * both gateways in interleaved rounds. PostgreSQL is a throwaway server started here the way the
 * tests start theirs (test/support/postgres.ts), on loopback, durability off.
 *
 * Round trips: the PostgreSQL gateway child counts every statement its pg clients send (one
 * round trip each; queryCounter.ts), read before and after each of its blocks, the block's
 * after-work (the usage record's finish, the gallery's row) included once it settled. The
 * background statements of an idle gateway (lease renewals, change notices) are measured apart,
 * per second, so the per-request figure can be read against them.
 */
export async function postgresCases(ctx: BenchContext): Promise<Row[]> {
  if (!ctx.wants('postgres.')) return [];
  const unavailable = postgresUnavailable();
  if (unavailable) {
    process.stderr.write(`warning: the postgres case is skipped: ${unavailable}\n`);
    return [];
  }
  const server = await startPostgres();
  let onSqlite: ExtraGateway | null = null;
  let onPostgres: ExtraGateway | null = null;
  let serverPid: number | null = null;
  try {
    const created = await createDatabase(server.url, 'atelier_bench');
    const databaseUrl = created.url;
    serverPid = created.serverPid;
    ctx.ownPid(serverPid);
    onSqlite = await startExtraGateway(ctx, true);
    onPostgres = await startExtraGateway(ctx, true, { databaseUrl });
    const pgGateway = onPostgres.gateway;
    const params = { size: SIZE.size, quality: 'medium', partialImages: 0 } as const;
    const targets: Record<Way, Target> = {
      direct: directGeneration(ctx.sim, ctx.setup, 'apiKey', params),
      sqlite: throughGeneration(onSqlite.gateway.url, onSqlite.setup, 'apiKey', params),
      postgres: throughGeneration(pgGateway.url, onPostgres.setup, 'apiKey', params),
    };
    for (const way of ['sqlite', 'postgres'] as const) {
      await checkImagesJson((await timedPost(targets[way], true)).body!, SIZE.width, SIZE.height);
    }
    const quiet = (pid: number) => waitQuiet(pid, QUIET_WINDOW_MS, QUIET_MAX_CPU_MS);
    const call = (way: Way) => async () => (await timedPost(targets[way])).ms;
    const sum: QueryCounts = { total: 0, byStatement: {} };
    let before: QueryCounts | null = null;
    const variants: Array<Variant<Way>> = [
      { name: 'direct', call: call('direct') },
      { name: 'sqlite', call: call('sqlite'), gateway: onSqlite.gateway, settle: quiet },
      {
        name: 'postgres',
        call: call('postgres'),
        gateway: pgGateway,
        settle: quiet,
        beforeBlock: async () => {
          before = await pgGateway.queryCounts();
        },
        afterBlock: async () => {
          if (before) addCounts(sum, before, await pgGateway.queryCounts());
        },
      },
    ];
    await warmUp(variants, ctx.plan.warmup);
    await Promise.all([quiet(onSqlite.gateway.pid), quiet(pgGateway.pid)]);
    const idleBefore = await pgGateway.queryCounts();
    const idleStarted = performance.now();
    await waitQuiet(pgGateway.pid, IDLE_WINDOW_MS, QUIET_MAX_CPU_MS);
    const idle = countsBetween(idleBefore, await pgGateway.queryCounts());
    const idlePerSecond = idle.total / ((performance.now() - idleStarted) / 1000);

    const { rounds, block } = ctx.plan.postgres;
    const result = await runBlocks(variants, rounds, block);
    const requests = rounds * block;
    const perRequest = sum.total / requests;
    const direct = distribution(result.samples.direct);
    const added = (way: Way) => addedByRound(result.byRound[way], result.byRound.direct);
    const extra = addedByRound(result.byRound.postgres, result.byRound.sqlite);
    const label = `${SIZE.size} PNG, API-key Images API, as installed`;
    const statements = Object.entries(sum.byStatement)
      .map(([statement, count]) => ({ statement, perRequest: count / requests }))
      .sort((a, b) => b.perRequest - a.perRequest);
    const details = {
      rounds,
      block,
      sqliteAddedMs: added('sqlite').median,
      postgresAddedMs: added('postgres').median,
      roundTripsPerRequest: perRequest,
      idleStatementsPerSecond: idlePerSecond,
      statementsPerRequest: statements,
    };
    ctx.log(
      `${label}: added over direct, median of ${rounds} rounds: SQLite ` +
        `${added('sqlite').median.toFixed(1)}, PostgreSQL ${added('postgres').median.toFixed(1)} ms ` +
        `(+${extra.median.toFixed(1)} ms); ${perRequest.toFixed(1)} statements per request, ` +
        `${idlePerSecond.toFixed(1)}/s idle`,
    );
    for (const { statement, perRequest: n } of statements) {
      const short = statement.length > 90 ? `${statement.slice(0, 87)}...` : statement;
      ctx.log(`  ${n.toFixed(2)} per request: ${short}`);
    }
    const spread = (s: ReturnType<typeof addedByRound>) => ({
      min: s.min,
      max: s.max,
      rounds: s.rounds,
      unit: 'ms' as const,
    });
    return [
      timeRow({
        id: 'postgres.sqlite.1024x1024',
        label: `${label}, SQLite mode`,
        direct,
        through: distribution(result.samples.sqlite),
        addedMs: added('sqlite').median,
        spread: spread(added('sqlite')),
        details,
      }),
      timeRow({
        id: 'postgres.postgres.1024x1024',
        label: `${label}, PostgreSQL mode`,
        direct,
        through: distribution(result.samples.postgres),
        addedMs: added('postgres').median,
        spread: spread(added('postgres')),
        details,
      }),
      timeRow({
        id: 'postgres.extra.1024x1024',
        label: `${label}: PostgreSQL's added over SQLite's (Direct column: SQLite)`,
        direct: distribution(result.samples.sqlite),
        through: distribution(result.samples.postgres),
        addedMs: extra.median,
        spread: spread(extra),
        target: `<= SQLite + ${POSTGRES_SLACK_MS} ms`,
        pass: extra.median <= POSTGRES_SLACK_MS,
        details,
      }),
      {
        id: 'postgres.roundTrips',
        label: `${label}: PostgreSQL round trips per request`,
        unit: 'count',
        direct: null,
        through: null,
        throughText: `${perRequest.toFixed(1)} per request`,
        addedMs: null,
        ratio: null,
        target: '-',
        pass: null,
        details,
      },
    ];
  } finally {
    await onPostgres?.close();
    await onSqlite?.close();
    if (serverPid !== null) ctx.forgetPid(serverPid);
    await server.stop();
  }
}
