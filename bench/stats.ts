export interface Distribution {
  n: number;
  p50: number;
  p90: number;
  min: number;
  max: number;
  mean: number;
  samples: number[];
}

/** Percentile by linear interpolation between the closest ranks (p in 0..100). */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = (p / 100) * (sorted.length - 1);
  const low = Math.floor(rank);
  const high = Math.ceil(rank);
  return sorted[low]! + (sorted[high]! - sorted[low]!) * (rank - low);
}

export function distribution(samples: readonly number[]): Distribution {
  const sorted = [...samples].sort((a, b) => a - b);
  return {
    n: sorted.length,
    p50: percentile(sorted, 50),
    p90: percentile(sorted, 90),
    min: sorted[0] ?? Number.NaN,
    max: sorted[sorted.length - 1] ?? Number.NaN,
    mean: sorted.reduce((sum, x) => sum + x, 0) / (sorted.length || 1),
    samples: samples.map((x) => Math.round(x * 100) / 100),
  };
}

export const MB = 1024 * 1024;

export function formatMs(ms: number): string {
  if (!Number.isFinite(ms)) return '-';
  if (Math.abs(ms) >= 10_000) return `${(ms / 1000).toFixed(1)} s`;
  if (Math.abs(ms) >= 100) return `${ms.toFixed(0)} ms`;
  return `${ms.toFixed(1)} ms`;
}

export function formatMb(bytes: number): string {
  return `${(bytes / MB).toFixed(0)} MB`;
}
