// The gateway of `npm run bench:stages`, alone in its process: its CPU (process.cpuUsage) and its
// V8 CPU profile cover the gateway only. The profile brackets the measured requests and lasts
// until each of them is settled (usage written) and, when kept, its image is in the gallery, so
// the work after the reply is counted with its request.
import fs from 'node:fs';
import { Session } from 'node:inspector/promises';
import os from 'node:os';
import path from 'node:path';
import { createGateway, type Gateway } from '../../src/gateway';
import type { FromStagesGateway, StagesGatewayConfig, ToStagesGateway, Totals } from './protocol';

/** 100 µs: dozens of samples per small request (the default, 1 ms, would give a handful). */
const SAMPLING_INTERVAL_US = 100;

const send = (message: FromStagesGateway) => process.send!(message);
let gateway: Gateway | null = null;
const totals: Totals = { settled: 0, images: 0 };
let waiting: { until: Totals; resolve: () => void } | null = null;

function reached(until: Totals): boolean {
  return totals.settled >= until.settled && totals.images >= until.images;
}

function check(): void {
  if (waiting && reached(waiting.until)) {
    const { resolve } = waiting;
    waiting = null;
    resolve();
  }
}

/** Resolves once the totals reach `until` (one wait at a time: the client drives the phases). */
function whenReached(until: Totals): Promise<void> {
  return new Promise((resolve) => {
    waiting = { until, resolve };
    check();
  });
}

async function start(config: StagesGatewayConfig): Promise<void> {
  const g = await createGateway({
    host: '127.0.0.1',
    port: 0,
    dataDir: config.dataDir,
    upstreamBaseUrl: config.upstreamBaseUrl,
    upstreamApiKey: 'bench-stages',
    log: () => undefined,
  });
  g.events.on('settled', () => {
    totals.settled += 1;
    check();
  });
  g.events.on('image', () => {
    totals.images += 1;
    check();
  });
  gateway = g;
  send({ type: 'ready', url: await g.listen() });
}

async function profile(until: Totals): Promise<void> {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: SAMPLING_INTERVAL_US });
  await session.post('Profiler.start');
  const cpuBefore = process.cpuUsage();
  const startedAt = performance.now();
  send({ type: 'profiling' });
  await whenReached(until);
  const cpu = process.cpuUsage(cpuBefore);
  const wallMs = performance.now() - startedAt;
  const { profile: result } = await session.post('Profiler.stop');
  session.disconnect();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-stages-'));
  const file = path.join(dir, 'gateway.cpuprofile');
  fs.writeFileSync(file, JSON.stringify(result));
  send({ type: 'profiled', file, cpuUserUs: cpu.user, cpuSystemUs: cpu.system, wallMs });
}

const fail = (error: unknown) => {
  process.stderr.write(`[gateway] ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
};

process.on('message', (message: ToStagesGateway) => {
  switch (message.type) {
    case 'start':
      start(message.config).catch(fail);
      break;
    case 'quiesce':
      whenReached(message.totals).then(() => send({ type: 'quiet' }), fail);
      break;
    case 'profile':
      profile(message.until).catch(fail);
      break;
    case 'close':
      void (gateway?.close(1_000) ?? Promise.resolve()).finally(() => process.exit(0));
      break;
  }
});
process.on('disconnect', () => process.exit(0));
