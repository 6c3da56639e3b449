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
