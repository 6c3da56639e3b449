// `npm run bench:storage`: what the storage port costs the embedded default, call by call. The
// request path's database calls, made the way the synchronous code of before made them and
// through the port (storage/engine.ts), interleaved in rounds on one SQLite file so the machine's
// load falls on both alike; the median round of each is reported, in microseconds per call.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { SETTINGS } from '../../src/gateway/settings';
import { openDatabase } from '../../src/gateway/storage/db';
import { openSettingsRepository, type Setting } from '../../src/gateway/storage/settingsRepository';
import { sqliteEngine } from '../../src/gateway/storage/sqliteEngine';

const ROUNDS = 15;
const CALLS = 20_000;

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
    const samples = new Map<string, number[]>(Object.keys(cases).map((name) => [name, []]));
    for (let round = 0; round < ROUNDS; round++) {
      for (const [name, run] of Object.entries(cases)) {
        const started = performance.now();
        await run();
        samples.get(name)!.push(((performance.now() - started) * 1000) / CALLS);
      }
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    console.log(`median of ${ROUNDS} rounds of ${CALLS} calls, microseconds per call`);
    for (const [name, xs] of samples) console.log(`${median(xs).toFixed(3).padStart(9)}  ${name}`);
  } finally {
    await engine.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

await main();
