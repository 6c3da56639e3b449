/**
 * How sure a before/after figure is (issue 24: "within 1.05x of before"). One call on these VMs
 * varies by a factor of two and more, so a median of a few rounds cannot tell 1.05x from 1.00x;
 * what can is an interval that narrows as rounds are added. The one here makes no assumption
 * about the noise's shape beyond symmetry of the round-to-round differences: the Hodges-Lehmann
 * estimate (the median of the Walsh averages) with the Wilcoxon signed-rank confidence interval,
 * its critical value from the statistic's exact distribution.
 */

/** An estimate and the interval around it, on the scale of the values given. */
export interface Interval {
  estimate: number;
  low: number;
  high: number;
  /** The interval's actual coverage (at least the one asked for: the statistic is discrete). */
  confidence: number;
  /** How many values it was made from. */
  n: number;
}

/**
 * P(T <= t) for t = 0 .. n(n+1)/2, T the signed-rank statistic of n values under the null
 * (each rank's sign a fair coin): the number of subsets of {1..n} summing to t, over 2^n, built
 * one rank at a time in probabilities (counts overflow past n = 60 or so).
 */
export function signedRankCdf(n: number): Float64Array {
  if (!Number.isInteger(n) || n < 0) throw new RangeError('n must be a whole number');
  const max = (n * (n + 1)) / 2;
  let p = new Float64Array(max + 1);
  p[0] = 1;
  for (let rank = 1; rank <= n; rank += 1) {
    const next = new Float64Array(max + 1);
    const top = (rank * (rank + 1)) / 2;
    for (let t = 0; t <= top; t += 1) next[t] = (p[t]! + (t >= rank ? p[t - rank]! : 0)) / 2;
    p = next;
  }
  for (let t = 1; t <= max; t += 1) p[t] = p[t]! + p[t - 1]!;
  return p;
}

/** Every pairwise average of the values (each with itself too), sorted. */
function walshAverages(values: readonly number[]): number[] {
  const walsh: number[] = [];
  for (let i = 0; i < values.length; i += 1)
    for (let j = i; j < values.length; j += 1) walsh.push((values[i]! + values[j]!) / 2);
  return walsh.sort((a, b) => a - b);
}

const middle = (sorted: readonly number[]) => {
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

/** The Hodges-Lehmann estimate alone (the median of the Walsh averages); NaN for no values. */
export function centre(values: readonly number[]): number {
  return values.length === 0 ? Number.NaN : middle(walshAverages(values));
}

/**
 * The Hodges-Lehmann estimate of the values' centre and its two-sided interval at `confidence`
 * (0.9: each side wrong at most 5 % of the time). Null when there are too few values for any
 * interval at that confidence (fewer than 5 at 0.9).
 */
export function centreInterval(values: readonly number[], confidence = 0.9): Interval | null {
  if (!(confidence > 0 && confidence < 1)) throw new RangeError('confidence must be in (0, 1)');
  const n = values.length;
  if (n === 0 || values.some((v) => !Number.isFinite(v))) return null;
  const walsh = walshAverages(values);
  const m = walsh.length;
  const cdf = signedRankCdf(n);
  const tail = (1 - confidence) / 2;
  // The largest k with P(T <= k - 1) <= tail: the interval is the k-th smallest and the k-th
  // largest Walsh average, and misses the centre with probability 2 P(T <= k - 1).
  let k = 0;
  while (k < m && cdf[k]! <= tail) k += 1;
  if (k === 0) return null;
  return {
    estimate: middle(walsh),
    low: walsh[k - 1]!,
    high: walsh[m - k]!,
    confidence: 1 - 2 * cdf[k - 1]!,
    n,
  };
}

/**
 * The interval of a ratio from paired rounds (each round's slowdown), made on the logarithms so
 * that 0.8x and 1.25x weigh alike, and turned back into ratios.
 */
export function ratioInterval(ratios: readonly number[], confidence = 0.9): Interval | null {
  if (ratios.some((r) => !(r > 0))) return null;
  const logs = centreInterval(
    ratios.map((r) => Math.log(r)),
    confidence,
  );
  return (
    logs && {
      ...logs,
      estimate: Math.exp(logs.estimate),
      low: Math.exp(logs.low),
      high: Math.exp(logs.high),
    }
  );
}

/** What an interval says of "at most `limit`": within, over, or not yet known. */
export type Judgement = 'within' | 'over' | 'undecided';

export function judgeAtMost(interval: Interval | null, limit: number): Judgement {
  if (!interval) return 'undecided';
  if (interval.high <= limit) return 'within';
  if (interval.low > limit) return 'over';
  return 'undecided';
}
