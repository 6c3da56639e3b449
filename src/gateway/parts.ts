/** What a started part of the gateway gives back besides its piece: how it stops. */
export interface Stoppable {
  /** Given the grace the in-flight requests have; only the HTTP part waits on it. */
  stop(graceMs: number): void | Promise<void>;
}

/** The parts a gateway started, stopped in the reverse of their start order. */
export interface StartedParts {
  /** Records a part that has started (its stop runs before every part recorded earlier). */
  started<T extends Stoppable>(part: T): T;
  /** Stops every part, newest first, once however often it is asked for. */
  stop(graceMs: number): Promise<void>;
  /**
   * Runs `start` and, should it (or anything after the last part) throw, stops what already
   * started before rethrowing: a gateway that fails to start holds no file, port or process.
   */
  orUndo<T>(start: () => Promise<T>): Promise<T>;
}

/**
 * The stop order follows the start order: what starts later uses what started earlier, so it
 * stops first (the server before the usage writer, the usage writer before the database). No
 * list to keep in step with the composition by hand.
 */
export function startedParts(): StartedParts {
  const stops: Stoppable[] = [];
  let stopping: Promise<void> | null = null;
  const stop = (graceMs: number) =>
    (stopping ??= (async () => {
      // Each part's stop runs even if a later one failed: the rest still hold files and ports.
      const failures: unknown[] = [];
      for (const part of stops.slice().reverse()) {
        try {
          await part.stop(graceMs);
        } catch (error) {
          failures.push(error);
        }
      }
      if (failures.length === 1) throw failures[0];
      if (failures.length > 1) throw new AggregateError(failures, 'Several parts failed to stop.');
    })());
  return {
    started(part) {
      if (stopping) throw new Error('The gateway is stopping: no part starts now.');
      stops.push(part);
      return part;
    },
    stop,
    async orUndo(start) {
      try {
        return await start();
      } catch (error) {
        await stop(0).catch(() => undefined);
        throw error;
      }
    },
  };
}
