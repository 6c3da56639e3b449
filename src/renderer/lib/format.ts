/** How the gateway pages write numbers, money, times and sizes. Pure, so tests pin them. */
export { formatUsd } from '../../shared/costEstimate';

const integer = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });

/** 1234567 -> "1,234,567". */
export function formatCount(n: number): string {
  return integer.format(n);
}

/** 1234567 -> "1.2M", 12345 -> "12.3k": for chart axes and compact cells. */
export function formatCompact(n: number): string {
  const abs = Math.abs(n);
  if (abs >= 1e9) return `${trim(n / 1e9)}B`;
  if (abs >= 1e6) return `${trim(n / 1e6)}M`;
  if (abs >= 1e4) return `${trim(n / 1e3)}k`;
  return formatCount(n);
}

const trim = (n: number) => n.toFixed(1).replace(/\.0$/, '');

const pad = (n: number) => String(n).padStart(2, '0');

/** Local time as "2026-04-21 15:30:12": sortable, and the same in every locale. */
export function formatDateTime(ms: number): string {
  const d = new Date(ms);
  return `${formatDay(ms)} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

/**
 * A request's time in a narrow column: "15:30:12" when it is from the same day as `now`,
 * "04-21 15:30" otherwise (the full date and time are in the row's details). With `withDate`
 * (a table that spans days) today's rows carry their date too, so no row reads as undated.
 */
export function formatWhen(ms: number, now: number, withDate = false): string {
  const d = new Date(ms);
  const time = `${pad(d.getHours())}:${pad(d.getMinutes())}`;
  if (!withDate && formatDay(ms) === formatDay(now)) return `${time}:${pad(d.getSeconds())}`;
  const year = new Date(now).getFullYear() === d.getFullYear() ? '' : `${d.getFullYear()}-`;
  return `${year}${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${time}`;
}

/** Local date as "2026-04-21". */
export function formatDay(ms: number): string {
  const d = new Date(ms);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
}

/** A span of time, largest two units: "45 s", "9 min 59 s", "2 h 5 min", "3 d 4 h". */
export function formatDuration(ms: number): string {
  const s = Math.max(0, Math.ceil(ms / 1000));
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return s % 60 ? `${m} min ${s % 60} s` : `${m} min`;
  const h = Math.floor(m / 60);
  if (h < 24) return m % 60 ? `${h} h ${m % 60} min` : `${h} h`;
  const d = Math.floor(h / 24);
  return h % 24 ? `${d} d ${h % 24} h` : `${d} d`;
}

/** "just now", "5 min ago", "3 h ago", "2 d ago", or the date beyond a month; null -> "never". */
export function formatAgo(ms: number | null, now: number): string {
  if (ms === null) return 'never';
  const diff = now - ms;
  if (diff < 45_000) return 'just now';
  if (diff < 3_600_000) return `${Math.round(diff / 60_000)} min ago`;
  if (diff < 86_400_000) return `${Math.round(diff / 3_600_000)} h ago`;
  if (diff < 30 * 86_400_000) return `${Math.round(diff / 86_400_000)} d ago`;
  return formatDay(ms);
}

/** 1536 -> "1.5 KB", 3_400_000 -> "3.2 MB". */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${trim(bytes / 1024)} KB`;
  return `${trim(bytes / (1024 * 1024))} MB`;
}

/** Milliseconds as the latency column shows them: "850 ms", "12.4 s". */
export function formatLatency(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${trim(ms / 1000)} s`;
}
