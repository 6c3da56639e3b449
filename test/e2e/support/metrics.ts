import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ARTIFACTS } from './studio';

/** Percentile of `values` (nearest rank), 0 for none. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[
    Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))
  ]!;
}

const round = (n: number) => Math.round(n * 10) / 10;

/**
 * Records a measurement in test-results/e2e/metrics.json (the benchmark report reads it) and
 * prints it on one line. Numbers are recorded, never asserted against a wall-clock limit.
 */
export function recordMetric(name: string, values: Record<string, number>, note: string): void {
  const file = path.join(ARTIFACTS, 'metrics.json');
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  const all = fs.existsSync(file)
    ? (JSON.parse(fs.readFileSync(file, 'utf8')) as { metrics: Record<string, unknown> })
    : { metrics: {} };
  const rounded = Object.fromEntries(Object.entries(values).map(([k, v]) => [k, round(v)]));
  all.metrics[name] = { ...rounded, note };
  const document = {
    ...all,
    machine: {
      cpus: os.cpus().length,
      model: os.cpus()[0]?.model ?? 'unknown',
      node: process.version,
    },
    updatedAt: new Date().toISOString(),
  };
  fs.writeFileSync(file, `${JSON.stringify(document, null, 2)}\n`);
  console.log(
    `metric ${name}: ${Object.entries(rounded)
      .map(([k, v]) => `${k}=${v}`)
      .join(' ')}`,
  );
}
