import { describe, expect, it } from 'vitest';
import {
  formatAgo,
  formatBytes,
  formatCompact,
  formatCount,
  formatDateTime,
  formatDuration,
  formatLatency,
  formatWhen,
} from './format';

describe('format', () => {
  it('writes counts and compact counts', () => {
    expect(formatCount(1234567)).toBe('1,234,567');
    expect(formatCompact(999)).toBe('999');
    expect(formatCompact(12_345)).toBe('12.3k');
    expect(formatCompact(2_000_000)).toBe('2M');
  });

  it('writes durations with their two largest units', () => {
    expect(formatDuration(0)).toBe('0 s');
    expect(formatDuration(44_100)).toBe('45 s');
    expect(formatDuration(599_000)).toBe('9 min 59 s');
    expect(formatDuration(600_000)).toBe('10 min');
    expect(formatDuration(2 * 3_600_000 + 5 * 60_000)).toBe('2 h 5 min');
    expect(formatDuration(76 * 3_600_000)).toBe('3 d 4 h');
  });

  it('writes how long ago, and never for null', () => {
    const now = Date.UTC(2026, 3, 21, 12);
    expect(formatAgo(null, now)).toBe('never');
    expect(formatAgo(now - 10_000, now)).toBe('just now');
    expect(formatAgo(now - 5 * 60_000, now)).toBe('5 min ago');
    expect(formatAgo(now - 3 * 3_600_000, now)).toBe('3 h ago');
    expect(formatAgo(now - 2 * 86_400_000, now)).toBe('2 d ago');
  });

  it('writes local times, sizes and latencies', () => {
    const at = new Date(2026, 3, 21, 9, 5, 7).getTime();
    expect(formatDateTime(at)).toBe('2026-04-21 09:05:07');
    expect(formatBytes(512)).toBe('512 B');
    expect(formatBytes(1536)).toBe('1.5 KB');
    expect(formatBytes(3 * 1024 * 1024)).toBe('3 MB');
    expect(formatLatency(850)).toBe('850 ms');
    expect(formatLatency(12_400)).toBe('12.4 s');
  });
});

describe('formatWhen', () => {
  const now = new Date(2026, 3, 21, 18, 0, 0).getTime();
  it('shows the time alone for today, the day and minute before, the year only when it differs', () => {
    expect(formatWhen(new Date(2026, 3, 21, 9, 5, 7).getTime(), now)).toBe('09:05:07');
    expect(formatWhen(new Date(2026, 3, 20, 23, 59, 59).getTime(), now)).toBe('04-20 23:59');
    expect(formatWhen(new Date(2025, 11, 31, 8, 0, 0).getTime(), now)).toBe('2025-12-31 08:00');
  });
  it('dates today too when the table spans days', () => {
    expect(formatWhen(new Date(2026, 3, 21, 9, 5, 7).getTime(), now, true)).toBe('04-21 09:05');
    expect(formatWhen(new Date(2026, 3, 20, 23, 59, 59).getTime(), now, true)).toBe('04-20 23:59');
  });
});
