import type { IncomingHttpHeaders } from 'node:http';

/**
 * The gateway makes n images as n single calls; this header tells the simulator which of the
 * caller's images a call draws, so n=4 gives four different pictures, the same four for the same
 * request every time. The gateway sends it to simulated accounts only.
 */
export const SIM_VARIANT_HEADER = 'x-atelier-sim-variant';

const MAX_VARIANT = 1000;

/** The first variant a call draws: the header's index, or 0 when absent or not a small integer. */
export function firstVariant(headers: IncomingHttpHeaders): number {
  const raw = headers[SIM_VARIANT_HEADER];
  if (typeof raw !== 'string' || !/^\d{1,4}$/.test(raw)) return 0;
  const value = Number(raw);
  return value <= MAX_VARIANT ? value : 0;
}

/**
 * A request's own seed: the gateway sends a fresh one with every request (its request id), so
 * "Run again" on the simulator draws new pictures, and passes on a caller's `x-atelier-sim-seed`
 * unchanged, so a test that wants the same picture twice asks for it. Without the header (a
 * caller talking to the simulator directly) a prompt and variant draw the same picture every time.
 */
export const SIM_SEED_HEADER = 'x-atelier-sim-seed';

/** What a seed may be: short printable words, so it can never smuggle anything into a header. */
export const SIM_SEED_PATTERN = /^[A-Za-z0-9_.:-]{1,80}$/;

/** The request's seed from its header, or null when absent or not a plain short word. */
export function requestSeed(headers: IncomingHttpHeaders): string | null {
  const raw = headers[SIM_SEED_HEADER];
  return typeof raw === 'string' && SIM_SEED_PATTERN.test(raw) ? raw : null;
}
