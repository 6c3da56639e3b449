import { useEffect, useState } from 'react';

interface ElapsedTimeProps {
  startedAt: number;
  /** Stops the clock. */
  finishedAt: number | null;
}

export function formatElapsed(ms: number): string {
  const seconds = Math.max(0, ms) / 1000;
  // "0.0 s" reads as a clock that never started.
  if (seconds < 0.1) return 'under 0.1 s';
  if (seconds < 60) return `${seconds.toFixed(1)} s`;
  const minutes = Math.floor(seconds / 60);
  return `${minutes} min ${Math.floor(seconds % 60)
    .toString()
    .padStart(2, '0')} s`;
}

/** Time since `startedAt`, ticking ten times a second until `finishedAt`. */
export function ElapsedTime({ startedAt, finishedAt }: ElapsedTimeProps) {
  const [now, setNow] = useState(startedAt);
  useEffect(() => {
    if (finishedAt !== null) return;
    const timer = setInterval(() => setNow(Date.now()), 100);
    return () => clearInterval(timer);
  }, [finishedAt]);
  const elapsed = (finishedAt ?? Math.max(now, startedAt)) - startedAt;
  return (
    <span
      className="elapsed"
      data-testid="elapsed"
      data-running={finishedAt === null ? 'true' : 'false'}
    >
      {formatElapsed(elapsed)}
    </span>
  );
}
