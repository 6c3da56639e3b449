import type http from 'node:http';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Db } from './storage/db';
import { shutdownSequence, type ShutdownParts } from './shutdown';

/**
 * The order of a stop, with a stand-in server (only its close calls are watched) and fake timers
 * for the drain's notice period: no real time passes.
 */
function parts(drainNoticeMs: number) {
  const steps: string[] = [];
  let finishRequests: () => void = () => undefined;
  const server = {
    close: (done: () => void) => {
      steps.push('server closed');
      done();
    },
    closeIdleConnections: () => steps.push('idle connections closed'),
    closeAllConnections: () => steps.push('all connections closed'),
  } as unknown as http.Server;
  const shutdown: ShutdownParts = {
    server,
    startDraining: () => steps.push('draining'),
    drainNoticeMs,
    cancelSignIns: () => undefined,
    drainRequests: () =>
      new Promise<void>((resolve) => {
        finishRequests = () => {
          steps.push('requests over');
          resolve();
        };
      }),
    drainGallery: () => Promise.resolve(),
    closeUrlImages: () => Promise.resolve(),
    ownAgent: null,
    simulator: null,
    closeUsage: () => {
      steps.push('usage closed');
      return Promise.resolve();
    },
    db: { close: () => steps.push('db closed') } as unknown as Db,
  };
  return { shutdown, steps, finishRequests: () => finishRequests() };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('the stop sequence', () => {
  it('drains first and keeps the port open until the requests are over', async () => {
    const { shutdown, steps, finishRequests } = parts(0);
    const closing = shutdownSequence(shutdown)(30_000);
    await Promise.resolve();
    expect(steps).toEqual(['draining', 'idle connections closed']);
    finishRequests();
    await closing;
    expect(steps).toEqual([
      'draining',
      'idle connections closed',
      'requests over',
      'server closed',
      'all connections closed',
      'usage closed',
      'db closed',
    ]);
  });

  it('keeps draining for the notice period when nothing is in flight', async () => {
    vi.useFakeTimers();
    const { shutdown, steps, finishRequests } = parts(5_000);
    const closing = shutdownSequence(shutdown)(30_000);
    finishRequests();
    await vi.advanceTimersByTimeAsync(4_999);
    expect(steps).not.toContain('server closed');
    await vi.advanceTimersByTimeAsync(1);
    await closing;
    expect(steps).toContain('server closed');
  });
});
