/**
 * Requests under way, so shutdown can let them finish, and cancel (and still record) the ones
 * that outlast the grace period.
 */
export interface Inflight {
  begin(): { signal: AbortSignal; end(): void };
  readonly size: number;
  /**
   * Resolves as soon as no request is in flight (at once if none is). A function of its own, not
   * a method: it may be handed on as it is.
   */
  readonly whenIdle: () => Promise<void>;
  /** Waits for in-flight work up to `graceMs`, then aborts what is left and waits for it to wind up. */
  drain(graceMs: number): Promise<void>;
}

export function createInflight(): Inflight {
  const active = new Set<AbortController>();
  let waiting: Array<() => void> = [];

  const waitIdle = () =>
    active.size === 0
      ? Promise.resolve()
      : new Promise<void>((resolve) => {
          waiting.push(resolve);
        });

  return {
    begin() {
      const controller = new AbortController();
      active.add(controller);
      return {
        signal: controller.signal,
        end() {
          active.delete(controller);
          if (active.size > 0 || waiting.length === 0) return;
          const resolvers = waiting;
          waiting = [];
          for (const resolve of resolvers) resolve();
        },
      };
    },
    get size() {
      return active.size;
    },
    whenIdle: waitIdle,
    async drain(graceMs) {
      let timer: NodeJS.Timeout | undefined;
      const graceOver = new Promise<'timeout'>((resolve) => {
        timer = setTimeout(() => resolve('timeout'), graceMs);
      });
      const outcome = await Promise.race([waitIdle().then(() => 'idle' as const), graceOver]);
      clearTimeout(timer);
      if (outcome === 'idle') return;
      for (const controller of active) controller.abort(new Error('server shutting down'));
      await waitIdle();
    },
  };
}
