// `npm run walk`: which gateway source files one `POST /v1/images/generations` runs code in.
// A measurement, not a test (issue 13's "done when": the request walk touches fewer files and
// never calls back into the composition root). A gateway on the built-in simulator starts in this
// process, serves a few warm-up generations, then V8's precise coverage (function counts, reset
// after the warm-up) brackets exactly one JSON generation with n=1, from the request to its
// gallery image on disk. Functions are mapped back to their source file through the bundle's
// source map; a file counts once any of its functions ran.
import fs from 'node:fs';
import { Session } from 'node:inspector/promises';
import { findSourceMap } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createGateway } from '../../src/gateway';
import { databasePath } from '../../src/gateway/core/dataDir';
import { createKeysRepository } from '../../src/gateway/keys/repository';
import { openDatabase } from '../../src/gateway/storage/db';
import { sqliteEngine } from '../../src/gateway/storage/sqliteEngine';

const WARM_UP = 5;
const GATEWAY_SOURCES = 'src/gateway/';
const ROOT = 'src/gateway/index.ts';
/** `npm run walk -- --functions` also names the functions that ran in each file. */
const SHOW_FUNCTIONS = process.argv.includes('--functions');

interface FunctionCoverage {
  functionName: string;
  ranges: Array<{ startOffset: number; count: number }>;
}
interface ScriptCoverage {
  url: string;
  functions: FunctionCoverage[];
}

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-walk-'));
const db = openDatabase(databasePath(dataDir));
const { key } = await createKeysRepository(sqliteEngine(db)).create({
  name: 'walk',
  group: 'default',
});
db.close();
const gateway = await createGateway({
  host: '127.0.0.1',
  port: 0,
  dataDir,
  simulatorSpeed: 0,
  oauthCallbackPort: 0,
  log: () => {},
});
const url = await gateway.listen();

/** One generation, over; resolves once its usage is settled and its image is in the gallery. */
async function generate(): Promise<void> {
  const res = await fetch(`${url}/v1/images/generations`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'image-model-2', prompt: 'a lighthouse at dusk', n: 1 }),
  });
  const requestId = res.headers.get('x-request-id');
  const kept = new Promise<void>((resolve) => {
    const onImage = (_imageId: string, forRequest: string) => {
      if (forRequest !== requestId) return;
      gateway.events.off('image', onImage);
      resolve();
    };
    gateway.events.on('image', onImage);
  });
  const body = await res.text();
  if (res.status !== 200) throw new Error(`generation answered ${res.status}: ${body}`);
  await kept;
}

const session = new Session();
session.connect();
try {
  await session.post('Profiler.enable');
  await session.post('Profiler.startPreciseCoverage', { callCount: true, detailed: false });
  for (let i = 0; i < WARM_UP; i++) await generate();
  await session.post('Profiler.takePreciseCoverage'); // resets the counts
  await generate();
  const { result } = (await session.post('Profiler.takePreciseCoverage')) as unknown as {
    result: ScriptCoverage[];
  };
  await session.post('Profiler.stopPreciseCoverage');
  report(filesThatRan(result));
} finally {
  session.disconnect();
  await gateway.close(1_000);
  fs.rmSync(dataDir, { recursive: true, force: true });
}

/** The repository-relative source files in which at least one function ran, with those functions. */
function filesThatRan(scripts: ScriptCoverage[]): Map<string, Set<string>> {
  const repo = process.cwd();
  const files = new Map<string, Set<string>>();
  for (const script of scripts) {
    if (!script.url.startsWith('file:')) continue;
    const map = findSourceMap(script.url);
    const lineStarts = map ? lineStartsOf(fileURLToPath(script.url)) : [];
    for (const fn of script.functions) {
      const range = fn.ranges[0];
      if (!range || range.count === 0) continue;
      let source = script.url;
      if (map) {
        const { line, column } = position(lineStarts, range.startOffset);
        const entry = map.findEntry(line, column);
        if (!('originalSource' in entry)) continue;
        source = entry.originalSource;
      }
      const file = path.relative(repo, source.startsWith('file:') ? fileURLToPath(source) : source);
      if (!file.startsWith(GATEWAY_SOURCES)) continue;
      const key = file.split(path.sep).join('/');
      const names = files.get(key) ?? new Set<string>();
      names.add(fn.functionName || '(anonymous)');
      files.set(key, names);
    }
  }
  return files;
}

function lineStartsOf(file: string): number[] {
  const text = fs.readFileSync(file, 'utf8');
  const starts = [0];
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return starts;
}

function position(lineStarts: number[], offset: number): { line: number; column: number } {
  let low = 0;
  let high = lineStarts.length - 1;
  while (low < high) {
    const mid = (low + high + 1) >> 1;
    if (lineStarts[mid]! <= offset) low = mid;
    else high = mid - 1;
  }
  return { line: low, column: offset - lineStarts[low]! };
}

function report(files: Map<string, Set<string>>): void {
  const byFolder = new Map<string, string[]>();
  for (const file of [...files.keys()].sort()) {
    const rest = file.slice(GATEWAY_SOURCES.length);
    const folder = rest.includes('/') ? `${rest.slice(0, rest.lastIndexOf('/'))}/` : '(root)';
    byFolder.set(folder, [...(byFolder.get(folder) ?? []), rest]);
  }
  const lines = [`One POST /v1/images/generations (json, n=1) after ${WARM_UP} warm-up requests:`];
  for (const [folder, names] of byFolder) {
    lines.push(`  ${folder.padEnd(22)} ${String(names.length).padStart(3)}  ${names.join(' ')}`);
    if (!SHOW_FUNCTIONS) continue;
    for (const name of names)
      lines.push(`      ${name}: ${[...files.get(GATEWAY_SOURCES + name)!].join(', ')}`);
  }
  lines.push(`  ${'total'.padEnd(22)} ${String(files.size).padStart(3)} gateway files`);
  lines.push(`  ${ROOT} ran: ${files.has(ROOT) ? 'yes' : 'no'}`);
  process.stdout.write(`${lines.join('\n')}\n`);
}
