import { resolve } from 'node:path';
import type { App } from 'electron';

/** Holds the single-instance lock; without it this process quits and the first one is focused. */
export function claimSingleInstance(app: App, onSecondInstance: () => void): boolean {
  if (!app.requestSingleInstanceLock()) {
    app.quit();
    return false;
  }
  app.on('second-instance', () => onSecondInstance());
  return true;
}

/**
 * Quitting waits for `stop` (the gateway closing its server and database) before the process
 * exits, with a deadline so a stuck request cannot keep a quitting app alive.
 */
export function stopBeforeQuit(
  app: App,
  stop: () => Promise<void>,
  { deadlineMs = 10_000, log = console.error } = {},
): void {
  let stopping = false;
  app.on('before-quit', (event) => {
    event.preventDefault();
    if (stopping) return;
    stopping = true;
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`still open after ${deadlineMs} ms`)), deadlineMs);
    });
    Promise.race([stop(), deadline])
      .then(
        () => 0,
        (error: unknown) => {
          log('Atelier: the gateway did not close cleanly:', error);
          return 1;
        },
      )
      .then((code) => {
        clearTimeout(timer);
        app.exit(code);
      });
  });
}

/** `ATELIER_DATA_DIR` wins, as it does for the CLI, so both can share one folder in tests. */
export function resolveDesktopDataDir(env: NodeJS.ProcessEnv, userData: string): string {
  return env.ATELIER_DATA_DIR ? resolve(env.ATELIER_DATA_DIR) : userData;
}
