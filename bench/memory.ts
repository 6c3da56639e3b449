import fs from 'node:fs';

/**
 * Resident memory of another process, from /proc/<pid>/status (Linux only). VmHWM is the kernel's
 * own peak of VmRSS; writing 5 to /proc/<pid>/clear_refs resets it (Linux 4.0+), so each case
 * gets its own peak. Polling VmRSS as well gives a second opinion where the reset is refused.
 */
export interface MemorySample {
  rssBytes: number;
  peakBytes: number;
}

export function readMemory(pid: number): MemorySample {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) =>
    Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0);
  return { rssBytes: kb('VmRSS') * 1024, peakBytes: kb('VmHWM') * 1024 };
}

export function resetPeak(pid: number): boolean {
  try {
    fs.writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

export interface PeakWatch {
  /** RSS when the watch started. */
  readonly baselineBytes: number;
  /** Stops polling; the peak is the larger of VmHWM (when it was reset) and the polled maximum. */
  stop(): { baselineBytes: number; peakBytes: number; polledPeakBytes: number; hwmReset: boolean };
}

export function watchPeak(pid: number, intervalMs = 10): PeakWatch {
  const hwmReset = resetPeak(pid);
  const baselineBytes = readMemory(pid).rssBytes;
  let polled = baselineBytes;
  const timer = setInterval(() => {
    polled = Math.max(polled, readMemory(pid).rssBytes);
  }, intervalMs);
  return {
    baselineBytes,
    stop() {
      clearInterval(timer);
      const now = readMemory(pid);
      const polledPeakBytes = Math.max(polled, now.rssBytes);
      return {
        baselineBytes,
        peakBytes: hwmReset ? Math.max(now.peakBytes, polledPeakBytes) : polledPeakBytes,
        polledPeakBytes,
        hwmReset,
      };
    },
  };
}
