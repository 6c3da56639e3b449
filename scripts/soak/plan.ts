// What the soak sends: a seeded mix of the gateway's endpoints, some with an injected upstream
// fault (scripted in the simulator for that request alone, by a marker in its prompt), some whose
// client leaves once the answer has begun.

export interface SoakRequest {
  path: string;
  body: Record<string, unknown>;
  /** Unique text in the prompt that the request's scripted fault matches. */
  marker: string;
  fault: Record<string, unknown> | null;
  disconnect: boolean;
  /** Sent with one of the budget keys (0-based) instead of the unlimited key; null for that one. */
  budgetKey: number | null;
}

/** Keys with a small total budget, sharing a fifth of the load: they run out during the soak. */
export const BUDGET_KEYS = 4;
const BUDGET_SHARE = 0.2;

export interface SoakOptions {
  requests: number;
  faults: number;
  disconnects: number;
  seed: number;
}

/**
 * mulberry32: a small seeded PRNG, so a run can be repeated exactly (the team suites draw their
 * faults from it too, test/support/team.ts).
 */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const FAULTS: Array<Record<string, unknown>> = [
  { kind: 'http_error', status: 500 },
  { kind: 'http_error', status: 502 },
  { kind: 'http_error', status: 503 },
  // The simulator reads the whole body, then drops the connection (drop after body).
  { kind: 'reset' },
  // The reply carries no usage: billed at the request's estimate, marked estimated. (Absurd
  // figures are left to billingEvidence.test.ts: capped at the request's possible maximum, they
  // may pass a budget by more than an estimate, which this run's budget check would count.)
  { kind: 'no_usage' },
  { kind: 'no_image' },
  { kind: 'refusal' },
  { kind: 'downgrade' },
  { kind: 'slow', delayMs: 300 },
];

export function planRequests(
  opts: SoakOptions,
  editImage: string,
): { warmup: SoakRequest[]; load: SoakRequest[] } {
  const random = prng(opts.seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const make = (i: number, withFaults: boolean): SoakRequest => {
    const marker = `[soak ${i}]`;
    const prompt = `a lighthouse on a cliff ${marker}`;
    const quality = pick(['low', 'medium', 'auto']);
    const format = pick(['png', 'jpeg', 'webp']);
    const size = pick(['1024x1024', '1024x1024', '1536x1024']);
    const r = random();
    let path = '/images/generations';
    let body: Record<string, unknown>;
    let valid = true;
    if (r < 0.45) body = { model: 'image-model-2', prompt, quality, size, output_format: format };
    else if (r < 0.55) body = { model: 'image-model-2', prompt, quality, size, n: 2 };
    else if (r < 0.67) {
      body = { model: 'image-model-2', prompt, quality, size, stream: true };
      if (random() < 0.5) body.partial_images = 1;
    } else if (r < 0.8) {
      path = '/images/edits';
      body = { model: 'image-model-2', prompt, quality, images: [{ image_url: editImage }] };
    } else if (r < 0.92) {
      path = '/responses';
      body = {
        model: 'agent-model-1',
        input: `draw ${prompt}`,
        tools: [{ type: 'image_generation', quality, size }],
        stream: random() < 0.5,
      };
    } else {
      // A refused request: recorded, never sent upstream.
      body = { model: 'image-model-2', prompt, size: '1000x1000' };
      valid = false;
    }
    const fault = withFaults && valid && random() < opts.faults ? pick(FAULTS) : null;
    const disconnect = withFaults && random() < opts.disconnects;
    const budgetKey =
      withFaults && random() < BUDGET_SHARE ? Math.floor(random() * BUDGET_KEYS) : null;
    return { path, body, marker, fault, disconnect, budgetKey };
  };
  return {
    warmup: Array.from({ length: 24 }, (_, i) => make(-1 - i, false)),
    load: Array.from({ length: opts.requests }, (_, i) => make(i, true)),
  };
}

/** A whole SSE body as `{ event, data }` pairs (comments and keepalives left out). */
export function parseSseEvents(text: string): Array<{ event: string; data: string }> {
  const events: Array<{ event: string; data: string }> = [];
  for (const block of text.split(/\r?\n\r?\n/)) {
    let event = 'message';
    const data: string[] = [];
    for (const line of block.split(/\r?\n/)) {
      if (line.startsWith('event:')) event = line.slice(6).trim();
      else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
    }
    if (data.length > 0) events.push({ event, data: data.join('\n') });
  }
  return events;
}
