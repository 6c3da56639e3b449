// `npm run bench:storage`: what the storage port costs the embedded default, call by call. The
// request path's database calls, made the way the synchronous code of before made them and
// through the port (storage/engine.ts), interleaved in rounds on one SQLite file so the machine's
// load falls on both alike; the median round of each is reported, in microseconds per call.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { SETTINGS } from '../../src/gateway/storage/settings';
import { openDatabase } from '../../src/gateway/storage/db';
import { openSettingsRepository, type Setting } from '../../src/gateway/storage/settingsRepository';
import { sqliteEngine } from '../../src/gateway/storage/sqliteEngine';
import { createUsageRepository, type NewUsageRecord } from '../../src/gateway/usage/repository';
import { FIELDS, COLUMNS, toParams } from '../../src/gateway/usage/row';

const ROUNDS = 15;
const CALLS = 20_000;
/** A request's usage writes commit a transaction each: fewer per round. */
const WRITES = 2_000;

/** A finished image request's record, as the writer writes it. */
function usageRecord(requestId: string): NewUsageRecord {
  return {
    requestId,
    createdAt: Date.now(),
    endpoint: '/v1/images/generations',
    model: 'image-model-2',
    size: '1024x1024',
    deliveredSize: '1024x1024',
    quality: 'low',
    deliveredQuality: 'low',
    outputFormat: 'png',
    n: 1,
    stream: false,
    status: 200,
    errorCode: null,
    errorMessage: null,
    inputTokens: 20,
    inputTextTokens: 20,
    inputImageTokens: 0,
    outputTokens: 272,
    outputTextTokens: 0,
    outputImageTokens: 272,
    totalTokens: 292,
    images: 1,
    latencyMs: 900,
    upstreamAccountId: null,
    upstreamAccountName: null,
    groupName: 'default',
    user: null,
    apiKeyId: 'k1',
    costMicros: 11_000,
    priceModel: 'image-model-2',
    fallbackStep: null,
    estimated: false,
  };
}

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

    // A request's usage writes, as the synchronous code of before made them: the pending row when
    // it goes upstream, then the record and the pending row's end in one transaction.
    const rawInsert = db.prepare(
      `INSERT INTO usage_records (${FIELDS.map((f) => `"${COLUMNS[f]}"`).join(', ')})
       VALUES (${FIELDS.map((f) => `@${f}`).join(', ')}) ON CONFLICT (request_id) DO NOTHING`,
    );
    const rawPending = db.prepare(
      `INSERT INTO usage_pending (request_id, record, attempts, updated_at, owner_pid, owner_run)
       VALUES (?, ?, 1, ?, ?, 'bench') ON CONFLICT (request_id) DO UPDATE SET record = excluded.record`,
    );
    const rawEnd = db.prepare('DELETE FROM usage_pending WHERE request_id = ?');
    const rawComplete = db.transaction((record: NewUsageRecord) => {
      rawInsert.run(toParams(record));
      rawEnd.run(record.requestId);
    });
    const usage = createUsageRepository(engine);
    let serial = 0;

    const cases: Record<string, () => Promise<void> | void> = {
      "a request's usage writes, better-sqlite3 directly": () => {
        for (let i = 0; i < WRITES; i++) {
          const record = usageRecord(`raw_${serial++}`);
          rawPending.run(record.requestId, JSON.stringify(record), Date.now(), process.pid);
          rawComplete.immediate(record);
        }
      },
      "a request's usage writes, through the port": async () => {
        for (let i = 0; i < WRITES; i++) {
          const record = usageRecord(`port_${serial++}`);
          await usage.savePending({
            requestId: record.requestId,
            record,
            attempts: 1,
            updatedAt: Date.now(),
            ownerPid: process.pid,
            ownerRun: 'bench',
            leaseUntil: Date.now() + 30_000,
          });
          await usage.complete(record);
        }
      },
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
        const calls = name.includes('usage writes') ? WRITES : CALLS;
        samples.get(name)!.push(((performance.now() - started) * 1000) / calls);
      }
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    console.log(
      `median of ${ROUNDS} rounds of ${CALLS} calls (usage writes: ${WRITES} requests), microseconds per call (usage writes: per request)`,
    );
    for (const [name, xs] of samples) console.log(`${median(xs).toFixed(3).padStart(9)}  ${name}`);
  } finally {
    await engine.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

await main();
