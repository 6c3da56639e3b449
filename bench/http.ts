import { performance } from 'node:perf_hooks';
import { Agent, request } from 'undici';

/**
 * One keep-alive pool for both directions, so direct and through calls pay the same client costs.
 * No limit on connections per origin (64 concurrent requests get 64 sockets); no timeouts: a
 * benchmark waits for a slow answer and reports it.
 */
export const agent = new Agent({
  keepAliveTimeout: 60_000,
  keepAliveMaxTimeout: 600_000,
  headersTimeout: 0,
  bodyTimeout: 0,
});

export interface Target {
  url: string;
  headers: Record<string, string>;
  body: Buffer;
}

export interface Timed {
  ms: number;
  /** Time to the first byte of the body: what comes after it is transfer. */
  firstByteMs: number;
  bytes: number;
  /** The whole body, only when asked for (spot checks); timed calls only count bytes. */
  body?: Buffer;
}

/** The errors of a kept-alive socket the server closed just as it was reused. */
const STALE_SOCKET = new Set(['UND_ERR_SOCKET', 'ECONNRESET']);

async function send(target: Target) {
  const post = () =>
    request(target.url, {
      method: 'POST',
      dispatcher: agent,
      headers: { ...target.headers, 'content-length': String(target.body.length) },
      body: target.body,
    });
  let res;
  try {
    res = await post();
  } catch (error) {
    // A kept-alive socket the server closed just as it was reused (its idle timeout; on a loaded
    // machine the window is wide): nothing was answered, so the request is sent once more.
    const code = (error as { code?: string }).code;
    if (code === undefined || !STALE_SOCKET.has(code)) throw error;
    res = await post();
  }
  if (res.statusCode !== 200) {
    const text = await res.body.text();
    throw new Error(`POST ${target.url} answered ${res.statusCode}: ${text.slice(0, 500)}`);
  }
  return res;
}

/** Time from sending to the last byte of the answer. The body is counted, not parsed. */
export async function timedPost(target: Target, keep = false): Promise<Timed> {
  const started = performance.now();
  const res = await send(target);
  let bytes = 0;
  let firstByteMs = Number.NaN;
  const chunks: Buffer[] = [];
  for await (const chunk of res.body as AsyncIterable<Buffer>) {
    if (bytes === 0) firstByteMs = performance.now() - started;
    bytes += chunk.length;
    if (keep) chunks.push(chunk);
  }
  return {
    ms: performance.now() - started,
    firstByteMs,
    bytes,
    body: keep ? Buffer.concat(chunks) : undefined,
  };
}

/**
 * `timedPost` with the platform's `fetch` as the client (web streams, its own keep-alive pool),
 * the other client issue 26 asks the small-image rate with. The body is counted chunk by chunk.
 */
export async function timedFetch(target: Target): Promise<Timed> {
  const started = performance.now();
  const post = () =>
    fetch(target.url, { method: 'POST', headers: target.headers, body: target.body });
  let res: Response;
  try {
    res = await post();
  } catch (error) {
    const code = (error as { cause?: { code?: string } }).cause?.code;
    if (code === undefined || !STALE_SOCKET.has(code)) throw error;
    res = await post();
  }
  if (res.status !== 200 || !res.body) {
    const text = await res.text();
    throw new Error(`POST ${target.url} answered ${res.status}: ${text.slice(0, 500)}`);
  }
  let bytes = 0;
  let firstByteMs = Number.NaN;
  const reader = res.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (bytes === 0) firstByteMs = performance.now() - started;
    bytes += value.byteLength;
  }
  return { ms: performance.now() - started, firstByteMs, bytes };
}

export interface StreamTimed extends Timed {
  /** When the first partial-image event had fully arrived. */
  firstPartialMs: number;
  /** When the event that completes the image had fully arrived (Images `*.completed`, Responses `response.completed`). */
  completedMs: number;
  events: number;
  partials: number;
}

const PARTIAL = /partial_image$/;
const COMPLETED = /^(image_generation\.completed|image_edit\.completed|response\.completed)$/;

/**
 * Times an SSE answer event by event without decoding it: events end at a blank line (base64 and
 * JSON hold no raw newlines), and the name is read from the `event:` line at the start of a block.
 */
export async function timedSse(target: Target, keep = false): Promise<StreamTimed> {
  const started = performance.now();
  const res = await send(target);
  const result: StreamTimed = {
    ms: 0,
    firstByteMs: Number.NaN,
    bytes: 0,
    firstPartialMs: Number.NaN,
    completedMs: Number.NaN,
    events: 0,
    partials: 0,
  };
  const chunks: Buffer[] = [];
  let head = '';
  let headDone = false;
  let pendingNewline = false;
  const endEvent = () => {
    const name = /^event: *(.*)$/m.exec(head)?.[1]?.trim() ?? '';
    head = '';
    headDone = false;
    if (name === '') return;
    const at = performance.now() - started;
    result.events += 1;
    if (PARTIAL.test(name)) {
      result.partials += 1;
      if (Number.isNaN(result.firstPartialMs)) result.firstPartialMs = at;
    } else if (COMPLETED.test(name)) result.completedMs = at;
  };
  for await (const chunk of res.body as AsyncIterable<Buffer>) {
    if (result.bytes === 0) result.firstByteMs = performance.now() - started;
    result.bytes += chunk.length;
    if (keep) chunks.push(chunk);
    let pos = 0;
    if (pendingNewline && chunk[0] === 0x0a) {
      endEvent();
      pos = 1;
    }
    for (;;) {
      const end = chunk.indexOf('\n\n', pos, 'latin1');
      const stop = end === -1 ? chunk.length : end;
      if (!headDone) {
        head += chunk.toString('latin1', pos, Math.min(stop, pos + 200));
        headDone = head.includes('\n') || head.length >= 200;
      }
      if (end === -1) break;
      endEvent();
      pos = end + 2;
    }
    // A block can end across chunks: "\n" at the end of one, "\n" at the start of the next.
    pendingNewline = pos < chunk.length && chunk[chunk.length - 1] === 0x0a;
  }
  result.ms = performance.now() - started;
  if (keep) result.body = Buffer.concat(chunks);
  return result;
}
