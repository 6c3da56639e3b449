/**
 * A small work queue with bounded concurrency: image files are written one or two at a time, off
 * the request path, so a burst of 4K images never competes with live requests for the disk and
 * the thread pool all at once.
 */
export interface TaskQueue {
  push(task: () => Promise<void>): void;
  /** Settles when every task pushed so far (and any they push) has finished. */
  drain(): Promise<void>;
  readonly pending: number;
}

export function createTaskQueue(concurrency: number, onError: (error: unknown) => void): TaskQueue {
  const waiting: Array<() => Promise<void>> = [];
  let running = 0;
  let idle: Array<() => void> = [];

  const next = (): void => {
    while (running < concurrency && waiting.length > 0) {
      const task = waiting.shift()!;
      running += 1;
      void Promise.resolve()
        .then(task)
        .catch(onError)
        .finally(() => {
          running -= 1;
          next();
        });
    }
    if (running === 0 && waiting.length === 0) {
      const resolvers = idle;
      idle = [];
      for (const resolve of resolvers) resolve();
    }
  };

  return {
    push(task) {
      waiting.push(task);
      next();
    },
    drain() {
      if (running === 0 && waiting.length === 0) return Promise.resolve();
      return new Promise<void>((resolve) => idle.push(resolve));
    },
    get pending() {
      return running + waiting.length;
    },
  };
}
