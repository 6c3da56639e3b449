// `npm run soak`: a bounded load against a child gateway (a real process, a real SQLite file, the
// simulator in a process of its own), with injected upstream faults and clients that disconnect,
// then the invariants a gateway that runs all day must keep. Prints a table; exits 1 when an
// invariant fails. Options: --requests N (2000), --concurrency N (16), --faults 0.2,
// --disconnects 0.05, --speed 0.05 (the simulator's latency multiplier), --seed N (1). Halfway
// through, the image model's output price doubles (admitted requests keep the old one).
import { fork, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import sharp from 'sharp';
import { databasePath } from '../../src/gateway/core/dataDir';
import { openDatabase } from '../../src/gateway/storage/db';
import { sqliteEngine } from '../../src/gateway/storage/sqliteEngine';
import { createKeysRepository } from '../../src/gateway/keys/repository';
import { admit, type ImageDemandInput } from '../../src/gateway/billing/admission';
import { costMicros } from '../../src/gateway/billing/cost';
import type { Prices } from '../../src/gateway/billing/prices';
import { responsesDemand } from '../../src/gateway/imageService/responses';
import { inputText } from '../../src/gateway/imageService/responsesBody';
import { parseResponsesRequest } from '../../src/gateway/validation/responsesRequest';
import { DEFAULT_TEXT_MODELS } from '../../src/shared/models';
import { DEFAULT_RETRIES } from '../../src/gateway/dispatch/retryPolicy';
import { openPricesRepository } from '../../src/gateway/storage/pricesRepository';
import { BUDGET_KEYS, parseSseEvents, type SoakRequest, planRequests } from './plan';
import { CONTROL_HEADER } from '../../src/simulator/guard';

const { values } = parseArgs({
  options: {
    requests: { type: 'string', default: '2000' },
    concurrency: { type: 'string', default: '16' },
    faults: { type: 'string', default: '0.2' },
    disconnects: { type: 'string', default: '0.05' },
    speed: { type: 'string', default: '0.05' },
    seed: { type: 'string', default: '1' },
  },
});
const opts = {
  requests: Number(values.requests),
  concurrency: Number(values.concurrency),
  faults: Number(values.faults),
  disconnects: Number(values.disconnects),
  speed: Number(values.speed),
  seed: Number(values.seed),
};

const here = path.dirname(new URL(import.meta.url).pathname);
const MB = 1024 * 1024;
/** How far the gateway's heap (after a full GC) may end above where it started. */
const MEMORY_SLACK = 32 * MB;

interface Memory {
  rss: number;
  heapUsed: number;
  external: number;
  arrayBuffers: number;
}

interface Child {
  process: ChildProcess;
  ready: Promise<{ url: string; pid?: number; controlToken?: string }>;
  ask<T = Memory>(type: string): Promise<T>;
  exited: Promise<number | null>;
}

function startChild(file: string, args: string[], execArgv: string[] = []): Child {
  const child = fork(path.join(here, file), args, {
    execArgv: ['--enable-source-maps', ...execArgv],
    stdio: ['ignore', 'inherit', 'pipe', 'ipc'],
  });
  let errors = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    errors = (errors + chunk.toString()).slice(-20_000);
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const ready = new Promise<{ url: string; pid?: number; controlToken?: string }>(
    (resolve, reject) => {
      child.once('message', (m) =>
        resolve(m as { url: string; pid?: number; controlToken?: string }),
      );
      void exited.then((code) => reject(new Error(`${file} exited with ${code}:\n${errors}`)));
    },
  );
  return {
    process: child,
    ready,
    exited,
    ask: (type) =>
      new Promise((resolve) => {
        child.once('message', (m) => resolve(m as never));
        child.send({ type });
      }),
  };
}

interface Outcome {
  request: SoakRequest;
  requestId: string | null;
  /** What the client saw: 2xx with a whole answer and no error event. */
  ok: boolean;
  status: number;
  /** Images the client received whole. */
  images: number;
  disconnected: boolean;
  error?: string;
}

async function send(base: string, key: string, request: SoakRequest): Promise<Outcome> {
  const controller = new AbortController();
  const outcome: Outcome = {
    request,
    requestId: null,
    ok: false,
    status: 0,
    images: 0,
    disconnected: false,
  };
  try {
    const res = await fetch(`${base}/v1${request.path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(request.body),
      signal: controller.signal,
    });
    outcome.requestId = res.headers.get('x-request-id');
    outcome.status = res.status;
    if (request.disconnect) {
      // The caller leaves once the answer has begun: the gateway must still record (and bill)
      // what the upstream goes on to make.
      outcome.disconnected = true;
      controller.abort();
      await res.body?.cancel().catch(() => undefined);
      return outcome;
    }
    const text = await res.text();
    if (!res.ok) return outcome;
    if (request.body.stream === true) {
      const events = parseSseEvents(text);
      const failed = events.some((e) => e.event === 'error' || e.event === 'response.failed');
      outcome.ok = !failed;
      outcome.images = failed ? 0 : countStreamImages(request, events);
    } else {
      outcome.ok = true;
      outcome.images = countJsonImages(request, JSON.parse(text) as Record<string, unknown>);
    }
  } catch (error) {
    outcome.error = error instanceof Error ? error.message : String(error);
  }
  return outcome;
}

function countJsonImages(request: SoakRequest, json: Record<string, unknown>): number {
  if (request.path === '/responses') return responseImages(json);
  return Array.isArray(json.data) ? json.data.filter((d) => d?.b64_json).length : 0;
}

function countStreamImages(
  request: SoakRequest,
  events: Array<{ event: string; data: string }>,
): number {
  if (request.path === '/responses') {
    const done = events.find((e) => e.event === 'response.completed');
    return done ? responseImages((JSON.parse(done.data) as { response: object }).response) : 0;
  }
  return events.filter((e) => e.event.endsWith('.completed')).length;
}

function responseImages(response: object): number {
  const output = (response as { output?: Array<{ type?: string; result?: unknown }> }).output;
  return (output ?? []).filter((item) => item.type === 'image_generation_call' && item.result)
    .length;
}

/** The simulator child's control credential (its control routes need it). */
let simControl = '';

async function scriptFault(simUrl: string, request: SoakRequest): Promise<void> {
  if (!request.fault) return;
  const res = await fetch(`${simUrl}/__sim/faults`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', [CONTROL_HEADER]: simControl },
    body: JSON.stringify({
      faults: [{ ...request.fault, match: { promptIncludes: request.marker } }],
    }),
  });
  if (!res.ok) throw new Error(`scripting a fault failed: ${res.status} ${await res.text()}`);
}

/** Resolves once `check()` is true, looking every 50 ms; false after `timeoutMs`. */
async function until(check: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return true;
}

function filesUnder(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .flatMap((entry) => (entry.isFile() ? [path.join(entry.parentPath, entry.name)] : []));
}

async function main(): Promise<number> {
  const started = Date.now();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-soak-'));
  const db = openDatabase(databasePath(dataDir));
  const engine = sqliteEngine(db);
  const keys = createKeysRepository(engine);
  const { key } = await keys.create({ name: 'soak', group: 'default' });
  // Small total budgets, spent during the run: the spend must never pass one by more than one
  // request's estimate, whatever the faults, disconnects and the price change.
  const budgets: Array<{ key: string; record: { id: string } }> = [];
  for (let i = 0; i < BUDGET_KEYS; i++) {
    budgets.push(
      await keys.create({
        name: `soak budget ${i}`,
        group: 'default',
        budgetMicros: BUDGET_MICROS,
        budgetPeriod: 'total',
      }),
    );
  }
  const keyOf = (request: SoakRequest) =>
    request.budgetKey === null ? key : budgets[request.budgetKey]!.key;
  const prices = await openPricesRepository(engine);
  const oldPrice = prices.get(PRICED_MODEL)!;
  const picture = await sharp({
    create: { ...EDIT_IMAGE, channels: 3, background: { r: 40, g: 90, b: 160 } },
  })
    .png()
    .toBuffer();
  const plan = planRequests(opts, `data:image/png;base64,${picture.toString('base64')}`);

  const simulator = startChild('simulatorChild.mjs', [String(opts.speed)]);
  const { url: simUrl, controlToken } = await simulator.ready;
  simControl = controlToken ?? '';
  const gatewayChild = startChild('gatewayChild.mjs', [dataDir, `${simUrl}/v1`], ['--expose-gc']);
  const { url } = await gatewayChild.ready;
  const rows = () => db.prepare('SELECT COUNT(*) FROM usage_records').pluck().get() as number;

  // Warm up (code paths compiled, pools filled) before the memory baseline.
  const warmup = plan.warmup;
  for (const request of warmup) await send(url, keyOf(request), request);
  await until(() => rows() === warmup.length, 60_000);
  const before = await gatewayChild.ask('memory');

  process.stdout.write(
    `soak: ${opts.requests} requests at concurrency ${opts.concurrency} against ${url} ...\n`,
  );
  const outcomes: Outcome[] = [];
  let next = 0;
  let priceChangedAt = 0;
  const loadStarted = Date.now();
  await Promise.all(
    Array.from({ length: opts.concurrency }, async () => {
      while (next < plan.load.length) {
        const request = plan.load[next++]!;
        if (priceChangedAt === 0 && next >= plan.load.length / 2) {
          // Mid-run, with requests in flight: they were admitted at the old price.
          priceChangedAt = Date.now();
          await prices.set(PRICED_MODEL, { imageOutput: oldPrice.imageOutput * 2 });
        }
        await scriptFault(simUrl, request);
        outcomes.push(await send(url, keyOf(request), request));
      }
    }),
  );
  const newPrice = prices.get(PRICED_MODEL)!;
  const loadSeconds = (Date.now() - loadStarted) / 1000;

  // Callers that left do not stop the upstream work: wait until every request is recorded.
  const expected = warmup.length + plan.load.length;
  const settled = await until(() => rows() >= expected, 120_000);
  const alive = gatewayChild.process.exitCode === null;
  const status = await fetch(`${url}/api/status`).then(
    (r) => r.status,
    () => 0,
  );
  const pending = db.prepare('SELECT COUNT(*) FROM usage_pending').pluck().get() as number;
  const rowCount = rows();
  const after = await gatewayChild.ask('memory');

  const recorded = new Map(
    (
      db
        .prepare(
          `SELECT request_id AS requestId, status, images, cost_micros AS cost FROM usage_records`,
        )
        .all() as Array<{ requestId: string; status: number; images: number; cost: number }>
    ).map((r) => [r.requestId, r] as const),
  );
  const billing = billingChecks(db, {
    budgets: budgets.map((b, i) => ({
      id: b.record.id,
      // One request's estimate: the largest of this key's requests, at the run's higher price.
      estimate: Math.max(
        0,
        ...plan.load.filter((r) => r.budgetKey === i).map((r) => estimateOf(r, prices.get)),
      ),
    })),
    priceChangedAt,
    oldPrice,
    newPrice,
  });
  const upstreamCalls = (await simulator.ask<{ calls: Record<string, number> }>('calls')).calls;
  const overBudgetCalls = plan.load.filter((request) => {
    const n = typeof request.body.n === 'number' ? request.body.n : 1;
    return (upstreamCalls[request.marker] ?? 0) > n * (1 + DEFAULT_RETRIES.maxRetries);
  });
  const mostCalls = Math.max(0, ...Object.values(upstreamCalls));
  const withId = outcomes.filter((o) => o.requestId !== null);
  const missing = withId.filter((o) => !recorded.has(o.requestId!));
  const whole = withId.filter((o) => !o.disconnected && !o.error);
  const delivered = whole.reduce((sum, o) => sum + o.images, 0);
  const billedForDelivered = whole
    .filter((o) => o.ok)
    .reduce((sum, o) => sum + (recorded.get(o.requestId!)?.images ?? 0), 0);
  const unequal = whole.filter(
    (o) => o.ok && (recorded.get(o.requestId!)?.images ?? -1) !== o.images,
  );
  const disagree = whole.filter((o) => {
    const row = recorded.get(o.requestId!);
    return row !== undefined && o.ok !== row.status < 400;
  });

  // A graceful stop, then the files as they were left.
  gatewayChild.process.kill('SIGTERM');
  const exitCode = await gatewayChild.exited;
  simulator.process.send({ type: 'close' });
  await simulator.exited;
  const integrity = db.pragma('integrity_check', { simple: true });
  const images = db.prepare('SELECT file, bytes FROM images').all() as Array<{
    file: string;
    bytes: number;
  }>;
  const imagesDir = path.join(dataDir, 'images');
  const badImages = images.filter((image) => {
    const file = path.join(imagesDir, ...image.file.split('/'));
    return !fs.existsSync(file) || fs.statSync(file).size !== image.bytes;
  });
  const leftovers = filesUnder(dataDir).filter((f) => /\.(part|tmp)$/.test(f));
  const statuses = new Map<string, number>();
  for (const row of recorded.values()) {
    const label = String(row.status);
    statuses.set(label, (statuses.get(label) ?? 0) + 1);
  }
  db.close();

  const checks: Array<[string, string, boolean]> = [
    [
      'process alive after the load',
      `pid ${gatewayChild.process.pid}, /api/status ${status}`,
      alive && status === 200,
    ],
    [
      'clients answered (no transport error)',
      `${outcomes.filter((o) => o.error && !o.disconnected).length} errors`,
      outcomes.every((o) => !o.error || o.disconnected),
    ],
    [
      'one usage row per request',
      `${rowCount} rows for ${expected} requests (${warmup.length} warm-up), ${missing.length} answered ids missing`,
      settled && missing.length === 0 && recorded.size === expected,
    ],
    [
      'billed images = delivered (whole answers)',
      `${billedForDelivered} billed, ${delivered} delivered, ${unequal.length} requests differ`,
      billedForDelivered === delivered && unequal.length === 0,
    ],
    ['row status agrees with the client', `${disagree.length} disagree`, disagree.length === 0],
    ['no pending rows left', `${pending}`, pending === 0],
    [
      "upstream calls within each request's retry budget",
      `${overBudgetCalls.length} requests over n x ${1 + DEFAULT_RETRIES.maxRetries}; most for one request: ${mostCalls}`,
      overBudgetCalls.length === 0,
    ],
    [
      "spend within each budget (+ one request's estimate)",
      billing.budgets
        .map((b) => `${money(b.spent)} of ${money(BUDGET_MICROS)} (+${money(b.slack)})`)
        .join('; '),
      billing.budgets.every((b) => b.spent <= BUDGET_MICROS + b.slack),
    ],
    [
      'billed at the prices of admission (price x2 mid-run)',
      `${billing.priced} image rows checked, ${billing.mispriced} at the wrong price`,
      billing.priced > 0 && billing.mispriced === 0,
    ],
    [
      'estimated rows (no usage)',
      `${billing.estimated} estimated, ${billing.estimatedFree} of them at $0`,
      billing.estimatedFree === 0,
    ],
    [
      'heap back near its start (after GC)',
      `${fmt(before.heapUsed)} -> ${fmt(after.heapUsed)} MB (rss ${fmt(before.rss)} -> ${fmt(after.rss)} MB)`,
      after.heapUsed < before.heapUsed + MEMORY_SLACK,
    ],
    ['graceful stop', `exit ${exitCode}`, exitCode === 0],
    ['SQLite integrity_check', String(integrity), integrity === 'ok'],
    [
      'no half-written file',
      `${leftovers.length} .part/.tmp, ${badImages.length} of ${images.length} gallery files wrong`,
      leftovers.length === 0 && badImages.length === 0,
    ],
  ];

  const faults = plan.load.filter((r) => r.fault).length;
  const disconnects = plan.load.filter((r) => r.disconnect).length;
  const lines = [
    `| Soak | ${opts.requests} requests, concurrency ${opts.concurrency}, ${faults} with an injected fault, ${disconnects} disconnecting, simulator speed ${opts.speed} |`,
    '| --- | --- |',
    `| Load time | ${loadSeconds.toFixed(1)} s (${(opts.requests / loadSeconds).toFixed(0)} requests/s); whole run ${((Date.now() - started) / 1000).toFixed(0)} s |`,
    `| Statuses recorded | ${[...statuses]
      .sort()
      .map(([s, n]) => `${s}: ${n}`)
      .join(', ')} |`,
    `| Images delivered / kept in the gallery | ${delivered} / ${images.length} |`,
    '',
    '| Invariant | Measured | Result |',
    '| --- | --- | --- |',
    ...checks.map(([name, measured, ok]) => `| ${name} | ${measured} | ${ok ? 'ok' : 'FAILED'} |`),
  ];
  process.stdout.write(`\n${lines.join('\n')}\n`);
  const failed = checks.filter(([, , ok]) => !ok);
  if (failed.length === 0) fs.rmSync(dataDir, { recursive: true, force: true });
  else process.stdout.write(`\nsoak FAILED (${failed.length}); data kept in ${dataDir}\n`);
  return failed.length === 0 ? 0 : 1;
}

const fmt = (bytes: number) => (bytes / MB).toFixed(1);
const money = (micros: number) => `$${(micros / 1_000_000).toFixed(4)}`;

/** $0.25 each: a few dozen images, so every budget key runs out during the load. */
const BUDGET_MICROS = 250_000;
const PRICED_MODEL = 'image-model-2';
/** The picture every soak edit sends (main() makes it). */
const EDIT_IMAGE = { width: 512, height: 512 };
/** Rows this close to the price change may have been admitted on either side of it. */
const ADMISSION_SKEW_MS = 2_000;

interface BillingRow {
  requestId: string;
  apiKeyId: string;
  endpoint: string;
  status: number;
  createdAt: number;
  costMicros: number;
  estimated: number;
  priceModel: string | null;
  inputTextTokens: number;
  inputImageTokens: number;
  outputTextTokens: number;
  outputImageTokens: number;
}

/**
 * What issue 23 asks of the bill: each budget key's spend at most one request's estimate past its
 * budget (the largest row of that key stands for one request's estimate); image rows billed at
 * the price of their admission (before the change: the old one; after it: the new one); no
 * estimated row at $0.
 */
function billingChecks(
  db: ReturnType<typeof openDatabase>,
  opts: {
    budgets: Array<{ id: string; estimate: number }>;
    priceChangedAt: number;
    oldPrice: Parameters<typeof costMicros>[1];
    newPrice: Parameters<typeof costMicros>[1];
  },
) {
  const rows = db
    .prepare(
      `SELECT request_id AS requestId, api_key_id AS apiKeyId, endpoint, status,
              created_at AS createdAt, cost_micros AS costMicros, estimated,
              price_model AS priceModel, input_text_tokens AS inputTextTokens,
              input_image_tokens AS inputImageTokens, output_text_tokens AS outputTextTokens,
              output_image_tokens AS outputImageTokens
       FROM usage_records`,
    )
    .all() as BillingRow[];
  const budgets = opts.budgets.map(({ id, estimate }) => ({
    spent: rows.filter((r) => r.apiKeyId === id).reduce((sum, r) => sum + r.costMicros, 0),
    slack: estimate,
  }));
  const billable = rows.filter(
    (r) =>
      r.endpoint.startsWith('/images/') &&
      r.status === 200 &&
      r.estimated === 0 &&
      r.priceModel === PRICED_MODEL &&
      Math.abs(r.createdAt - opts.priceChangedAt) > ADMISSION_SKEW_MS,
  );
  const usageOf = (r: BillingRow) =>
    rowUsage(r.inputTextTokens, r.inputImageTokens, r.outputTextTokens, r.outputImageTokens);
  const mispriced = billable.filter((r) => {
    const price = r.createdAt < opts.priceChangedAt ? opts.oldPrice : opts.newPrice;
    return costMicros(usageOf(r), price) !== r.costMicros;
  });
  const estimated = rows.filter((r) => r.estimated === 1);
  return {
    budgets,
    priced: billable.length,
    mispriced: mispriced.length,
    estimated: estimated.length,
    estimatedFree: estimated.filter((r) => r.costMicros === 0 && r.status < 400).length,
  };
}

/** The gateway's admission estimate of a soak request (0 for one refused before pricing). */
function estimateOf(request: SoakRequest, priceFor: (model: string) => Prices | null): number {
  const body = request.body;
  if (body.size === '1000x1000') return 0;
  if (request.path === '/responses') {
    const parsed = parseResponsesRequest(body, DEFAULT_TEXT_MODELS);
    return admit(responsesDemand(parsed, inputText(parsed.body)), priceFor).costMicros;
  }
  const image: ImageDemandInput = {
    model: String(body.model),
    prompt: String(body.prompt),
    size: typeof body.size === 'string' ? body.size : 'auto',
    quality: body.quality as ImageDemandInput['quality'],
    n: typeof body.n === 'number' ? body.n : 1,
    partialImages:
      body.stream === true && typeof body.partial_images === 'number' ? body.partial_images : 0,
    inputImages: request.path === '/images/edits' ? [EDIT_IMAGE] : [],
  };
  return admit({ image }, priceFor).costMicros;
}

/** A row's token columns back to the usage they were billed from. */
function rowUsage(
  inputText: number,
  inputImage: number,
  outputText: number,
  outputImage: number,
): Parameters<typeof costMicros>[0] {
  const usage = {
    input_tokens: inputText + inputImage,
    input_tokens_details: { text_tokens: inputText, image_tokens: inputImage },
    output_tokens: outputText + outputImage,
    output_tokens_details: { text_tokens: outputText, image_tokens: outputImage },
    total_tokens: inputText + inputImage + outputText + outputImage,
  };
  return usage;
}

process.exitCode = await main();
