import { useCallback, useEffect, useEffectEvent, useState } from 'react';
import { GatewayError, type GatewayErrorInfo } from './api/errors';

/** Any thrown value as the error shape pages show (ErrorNotice, field errors). */
export function errorInfo(error: unknown): GatewayErrorInfo {
  if (error instanceof GatewayError) return error.toInfo();
  return {
    status: 0,
    message: error instanceof Error ? error.message : String(error),
    param: null,
    code: null,
    type: null,
    requestId: null,
  };
}

export interface Resource<T> {
  data: T | null;
  error: GatewayErrorInfo | null;
  /** The first answer (data or error) has arrived. */
  loaded: boolean;
  /** Loads again, keeping the current data on screen meanwhile. */
  reload: () => void;
}

/**
 * Loads `load` on mount and whenever `key` changes (a string of the inputs, e.g. the filters);
 * an older answer never overwrites a newer one, and leaving the page aborts the request.
 */
export function useResource<T>(load: (signal: AbortSignal) => Promise<T>, key = ''): Resource<T> {
  const [state, setState] = useState<{ data: T | null; error: GatewayErrorInfo | null }>({
    data: null,
    error: null,
  });
  const [loaded, setLoaded] = useState(false);
  const [round, setRound] = useState(0);
  const start = useEffectEvent((signal: AbortSignal) => load(signal));

  useEffect(() => {
    const controller = new AbortController();
    start(controller.signal).then(
      (data) => {
        if (controller.signal.aborted) return;
        setState({ data, error: null });
        setLoaded(true);
      },
      (error: unknown) => {
        if (controller.signal.aborted) return;
        setState((s) => ({ data: s.data, error: errorInfo(error) }));
        setLoaded(true);
      },
    );
    return () => controller.abort();
  }, [key, round]);

  const reload = useCallback(() => setRound((n) => n + 1), []);
  return { ...state, loaded, reload };
}

/** The current time, ticking every `intervalMs` while `enabled` (countdowns, "5 min ago"). */
export function useNow(intervalMs = 1000, enabled = true): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!enabled) return;
    const timer = setInterval(() => setNow(Date.now()), intervalMs);
    return () => clearInterval(timer);
  }, [intervalMs, enabled]);
  return now;
}

/** Calls `tick` every `intervalMs` while mounted and `enabled` (live load, login state). */
export function useInterval(tick: () => void, intervalMs: number, enabled = true): void {
  const run = useEffectEvent(tick);
  useEffect(() => {
    if (!enabled) return;
    const timer = setInterval(() => run(), intervalMs);
    return () => clearInterval(timer);
  }, [intervalMs, enabled]);
}

/** `value`, once it has stopped changing for `ms` (search as you type). */
export function useDebounced<T>(value: T, ms: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return settled;
}

/** A set of ids that can each be switched on and off (rows opened to show their details). */
export function useToggleSet(): [ReadonlySet<string>, (id: string) => void] {
  const [set, setSet] = useState<ReadonlySet<string>>(() => new Set());
  const toggle = useCallback(
    (id: string) =>
      setSet((current) => {
        const next = new Set(current);
        if (!next.delete(id)) next.add(id);
        return next;
      }),
    [],
  );
  return [set, toggle];
}
