// `npm run bench:storage`: what the storage port costs the embedded default, call by call. The
// request path's database calls, made the way the synchronous code of before made them and
// through the port (storage/engine.ts), interleaved in rounds on one SQLite file so the machine's
// load falls on both alike; the median round of each is reported, in microseconds per call.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { openAccountsRepository } from '../../src/gateway/accounts/repository';
import { createUsageLedger } from '../../src/gateway/limits/ledger';
import { KeyLimiter } from '../../src/gateway/limits/limiter';
import { NO_LIMITS } from '../../src/gateway/limits/keyLimits';
import { SETTINGS } from '../../src/gateway/storage/settings';
import { openDatabase } from '../../src/gateway/storage/db';
import { openSettingsRepository, type Setting } from '../../src/gateway/storage/settingsRepository';
import { sqliteEngine } from '../../src/gateway/storage/sqliteEngine';
import { UsageNotes } from '../../src/gateway/usage/notes';
import { createUsageRepository } from '../../src/gateway/usage/repository';

const ROUNDS = 15;
const CALLS = 20_000;
/** A limited key's admission writes: fewer per round, they are the slow ones. */
const LIMITED_CALLS = 2_000;

/** The settings the request path reads on a generation (liveSettings.ts). */
const PER_REQUEST: ReadonlyArray<Setting<unknown>> = [
  SETTINGS.allowedOrigins,
  SETTINGS.strictDelivery,
  SETTINGS.fallbackLadder,
  SETTINGS.contentFilter,
  SETTINGS.timeoutNormalMs,
  SETTINGS.timeoutLargeMs,
  SETTINGS.keepApiImages,
] as ReadonlyArray<Setting<unknown>>;

async function main(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-storage-bench-'));
  const db = openDatabase(path.join(dir, 'atelier.db'));
  const engine = sqliteEngine(db);
  try {
    const settings = await openSettingsRepository(engine);
    await settings.set(SETTINGS.allowedOrigins, ['http://localhost:5173']);
    for (let i = 0; i < 1000; i++) {
      await engine.run(
        `INSERT INTO api_keys (id, name, prefix, hash, created_at) VALUES (?, ?, ?, ?, ?)`,
        [`k${i}`, `key ${i}`, 'atl_', Buffer.from(`hash-${i}`.padEnd(32, '.')), i],
      );
    }
    const byHash = 'SELECT id, name, status FROM api_keys WHERE hash = ?';
    const hash = Buffer.from('hash-500'.padEnd(32, '.'));
    const rawLookup = db.prepare(byHash);
    const rawSetting = db.prepare('SELECT value FROM settings WHERE key = ?').pluck();

    const accounts = await openAccountsRepository(engine);
    for (const name of ['alpha', 'beta', 'gamma']) {
      await accounts.create({
        name,
        kind: 'simulator',
        tier: 'pro',
        groupName: 'default',
        capacity: 4,
        enabled: true,
        modelMap: {},
        maxPixels: 8_294_400,
        baseUrl: 'builtin',
        issuer: null,
        bridgeModel: null,
        upstreamAccountId: null,
        secretName: null,
      });
    }
    const dataVersion = db.prepare('PRAGMA data_version').pluck();
    let seenVersion = -1;
    let list: unknown[] = [];
    const rawAccounts = db.prepare('SELECT * FROM accounts ORDER BY created_at, id');

    // A key with a monthly budget: its admission, estimate and charge.
    const limited = {
      id: 'k500',
      limits: { ...NO_LIMITS, budgetMicros: 1_000_000_000, budgetPeriod: 'month' as const },
    };
    const limiter = new KeyLimiter(createUsageLedger(engine), {
      owner: 'bench',
      now: Date.now,
      log: () => {},
    });
    const rawSpent = db.prepare(
      `SELECT COALESCE(SUM(cost_micros), 0) AS costMicros, COALESCE(SUM(images), 0) AS images
       FROM usage_records WHERE api_key_id = ? AND created_at >= ?`,
    );
    const tickets = new Map<string, { costMicros: number }>();
    let request = 0;
    // Every request's usage record (its own commit). Its rows name another key, so the budget's
    // sum stays as small in the last round as in the first and the cases measure commits.
    const usage = createUsageRepository(engine);
    const usageRecord = (requestId: string, now: number) => {
      const notes = new UsageNotes(requestId, now, '/images/generations');
      notes.authenticated({ id: 'k501', group: 'default' });
      return notes.record(
        { status: 200, errorCode: null, errorMessage: null, latencyMs: 1 },
        { costMicros: 4_000, estimated: false },
      );
    };

    const cases: Record<string, () => Promise<void> | void> = {
      'key lookup, better-sqlite3 directly': () => {
        for (let i = 0; i < CALLS; i++) rawLookup.get(hash);
      },
      'key lookup, through the port': async () => {
        for (let i = 0; i < CALLS; i++) await engine.get(byHash, [hash]);
      },
      // Before: each setting read was a query, JSON.parse and the schema's check.
      "a request's settings, read from the table": () => {
        for (let i = 0; i < CALLS; i++) {
          for (const s of PER_REQUEST) {
            const raw = rawSetting.get(s.key) as string | undefined;
            if (raw !== undefined) s.schema.safeParse(JSON.parse(raw));
          }
        }
      },
      // Now: one change check (PRAGMA data_version) per request, then the snapshot.
      "a request's settings, from the snapshot": () => {
        for (let i = 0; i < CALLS; i++) {
          settings.stale();
          for (const s of PER_REQUEST) settings.get(s);
        }
      },
    };
    // Before: the pool asked data_version on each of a request's reads of the list (three or more).
    cases["a request's account list (3 reads), data_version each (before)"] = () => {
      for (let i = 0; i < CALLS; i++) {
        for (let read = 0; read < 3; read++) {
          const v = dataVersion.get() as number;
          if (v !== seenVersion) {
            seenVersion = v;
            list = rawAccounts.all();
          }
        }
      }
    };
    // Now: one change check per request (freshSnapshots), then the snapshot, as the pool reads it.
    cases["a request's account list (3 reads), the snapshot (now)"] = () => {
      for (let i = 0; i < CALLS; i++) {
        accounts.stale();
        for (let read = 0; read < 3; read++) list = [...accounts.cached()];
      }
    };
    // Before: a ticket in memory, the budget's sum at the estimate and at the charge.
    cases["a budget key's admission, estimate and charge, in memory (before)"] = () => {
      for (let i = 0; i < LIMITED_CALLS; i++) {
        const id = `req_${++request}`;
        tickets.set(id, { costMicros: 0 });
        rawSpent.get(limited.id, 0);
        tickets.get(id)!.costMicros += 4_000;
        tickets.delete(id);
        rawSpent.get(limited.id, 0);
      }
    };
    // Before (b4cb6ca): a reservation row, decided and written in a transaction, released in a
    // commit of its own at the charge.
    cases["a budget key's admission, estimate and charge, reservation rows (before)"] =
      async () => {
        for (let i = 0; i < LIMITED_CALLS; i++) {
          const id = `req_${++request}`;
          const now = Date.now();
          await limiter.admit(id, limited, now, now);
          await limiter.reserve(id, limited, { costMicros: 4_000, images: 1 }, now);
          await limiter.charge(id, 4_000, now);
        }
      };
    // What every request commits at its end, limited or not: the baseline of the next case.
    cases["a usage record's commit (any key)"] = async () => {
      for (let i = 0; i < LIMITED_CALLS; i++) {
        const id = `req_${++request}`;
        await usage.complete(usageRecord(id, Date.now()));
      }
    };
    // Now: the reservation ends in the usage record's commit; its cost over the case above is
    // what a limited key adds.
    cases["a budget key's admission, estimate and charge, with its usage record's commit (now)"] =
      async () => {
        for (let i = 0; i < LIMITED_CALLS; i++) {
          const id = `req_${++request}`;
          const now = Date.now();
          await limiter.admit(id, limited, now, now);
          await limiter.reserve(id, limited, { costMicros: 4_000, images: 1 }, now);
          await usage.complete(usageRecord(id, now), limiter.releaseWithRecord(id));
          await limiter.charge(id, 4_000, now);
        }
      };
    const perCall = (name: string) =>
      name.startsWith("a budget key's") || name.startsWith("a usage record's")
        ? LIMITED_CALLS
        : CALLS;
    const samples = new Map<string, number[]>(Object.keys(cases).map((name) => [name, []]));
    for (let round = 0; round < ROUNDS; round++) {
      for (const [name, run] of Object.entries(cases)) {
        const started = performance.now();
        await run();
        samples.get(name)!.push(((performance.now() - started) * 1000) / perCall(name));
      }
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    console.log(
      `median of ${ROUNDS} rounds of ${CALLS} calls (${LIMITED_CALLS} for a budget key's), microseconds per call`,
    );
    for (const [name, xs] of samples) console.log(`${median(xs).toFixed(3).padStart(9)}  ${name}`);
    if (list.length !== 3) throw new Error('the account list was not read');
    limiter.close();
  } finally {
    await engine.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

await main();
