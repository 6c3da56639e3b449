import { useEffect, useId, useRef, useState } from 'react';
import {
  BarController,
  BarElement,
  CategoryScale,
  Chart,
  LinearScale,
  Tooltip,
  type ChartConfiguration,
} from 'chart.js';
import { useThemeStore } from '../../stores/theme';
import type { Series } from './usageQuery';

// Only what the bar charts use, so the bundle carries no other chart types.
Chart.register(BarController, BarElement, CategoryScale, LinearScale, Tooltip);

interface UsageChartProps {
  title: string;
  series: Series;
  /** How values read on the axis, in tooltips and in the table. */
  format: (value: number) => string;
  /** Bars along the horizontal axis (days) or stacked down the vertical one (names). */
  horizontal?: boolean;
  testId: string;
}

/** Reads the palette of the current theme from the CSS variables of styles.css. */
function palette() {
  const css = getComputedStyle(document.documentElement);
  const read = (name: string, fallback: string) => css.getPropertyValue(name).trim() || fallback;
  return {
    accent: read('--accent', '#6d5bd0'),
    text: read('--text', '#1d1d22'),
    muted: read('--muted', '#5d5d6b'),
    grid: read('--border', '#dcdce3'),
  };
}

/** Re-renders when the theme changes, by choice or by the system's. */
function useThemeVersion(): string {
  const preference = useThemeStore((s) => s.preference);
  const [systemDark, setSystemDark] = useState(
    () => typeof matchMedia !== 'undefined' && matchMedia('(prefers-color-scheme: dark)').matches,
  );
  useEffect(() => {
    const query = matchMedia('(prefers-color-scheme: dark)');
    const listener = (e: MediaQueryListEvent) => setSystemDark(e.matches);
    query.addEventListener('change', listener);
    return () => query.removeEventListener('change', listener);
  }, []);
  return `${preference}:${systemDark}`;
}

/**
 * A bar chart on a canvas (Chart.js), with the same numbers as a table for screen readers and
 * for anyone who wants the exact values.
 */
export function UsageChart({ title, series, format, horizontal, testId }: UsageChartProps) {
  const canvas = useRef<HTMLCanvasElement>(null);
  const theme = useThemeVersion();
  const headingId = useId();
  const key = JSON.stringify(series);

  useEffect(() => {
    if (!canvas.current) return;
    const colors = palette();
    const data: Series = JSON.parse(key) as Series;
    const config: ChartConfiguration<'bar'> = {
      type: 'bar',
      data: {
        labels: data.labels,
        datasets: [
          {
            label: title,
            data: data.values,
            backgroundColor: colors.accent,
            borderRadius: 4,
            maxBarThickness: 28,
          },
        ],
      },
      options: {
        indexAxis: horizontal ? 'y' : 'x',
        responsive: true,
        maintainAspectRatio: false,
        animation: false,
        plugins: {
          legend: { display: false },
          tooltip: { callbacks: { label: (item) => format(Number(item.raw)) } },
        },
        scales: {
          [horizontal ? 'x' : 'y']: {
            beginAtZero: true,
            ticks: { color: colors.muted, callback: (v) => format(Number(v)), maxTicksLimit: 6 },
            grid: { color: colors.grid },
          },
          [horizontal ? 'y' : 'x']: {
            ticks: { color: colors.text, autoSkip: true, maxRotation: 0 },
            grid: { display: false },
          },
        },
      },
    };
    const chart = new Chart(canvas.current, config);
    return () => chart.destroy();
  }, [key, theme, horizontal, title, format]);

  const total = series.values.reduce((a, b) => a + b, 0);
  const empty = series.values.every((v) => v === 0);
  return (
    <figure className="usage-chart panel" data-testid={testId} aria-labelledby={headingId}>
      <figcaption id={headingId}>
        <h3>{title}</h3>
        <span className="muted">{format(total)}</span>
      </figcaption>
      <div className="chart-box">
        {empty ? (
          <p className="empty-state">Nothing in this range yet.</p>
        ) : (
          <canvas
            ref={canvas}
            role="img"
            aria-label={`${title}: ${series.labels
              .slice(0, 12)
              .map((l, i) => `${l} ${format(series.values[i] ?? 0)}`)
              .join(', ')}`}
          />
        )}
      </div>
      <details className="chart-table">
        <summary>Show as a table</summary>
        <table className="data-table">
          <tbody>
            {series.labels.map((label, i) => (
              <tr key={label}>
                <th scope="row">{label}</th>
                <td className="num">{format(series.values[i] ?? 0)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </figure>
  );
}
