import type http from 'node:http';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startedParts } from './parts';
import { serverStop } from './shutdown';

/**
 * The order of a stop: the parts a gateway starts (storage, usage, the HTTP part last), with a
 * stand-in server (only its close calls are watched) and fake timers for the drain's notice
 * period: no real time passes.
 */
function gateway(drainNoticeMs: number) {
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
  const parts = startedParts();
  parts.started({ stop: () => void steps.push('db closed') });
  parts.started({ stop: () => void steps.push('usage closed') });
  parts.started({
    stop: serverStop({
      server,
      startDraining: () => steps.push('draining'),
      drainNoticeMs,
      drainRequests: () =>
        new Promise<void>((resolve) => {
          finishRequests = () => {
            steps.push('requests over');
            resolve();
          };
        }),
    }),
  });
  return { parts, steps, finishRequests: () => finishRequests() };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('the stop sequence', () => {
  it('drains first, keeps the port open until the requests are over, then stops the rest newest first', async () => {
    const { parts, steps, finishRequests } = gateway(0);
    const closing = parts.stop(30_000);
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
    const { parts, steps, finishRequests } = gateway(5_000);
    const closing = parts.stop(30_000);
    finishRequests();
    await vi.advanceTimersByTimeAsync(4_999);
    expect(steps).not.toContain('server closed');
    await vi.advanceTimersByTimeAsync(1);
    await closing;
    expect(steps).toContain('server closed');
  });
});

describe('the started parts', () => {
  it('stop once however often asked, and take no new part once stopping', async () => {
    const parts = startedParts();
    const stop = vi.fn();
    parts.started({ stop });
    await Promise.all([parts.stop(0), parts.stop(0)]);
    await parts.stop(0);
    expect(stop).toHaveBeenCalledTimes(1);
    expect(() => parts.started({ stop })).toThrow(/stopping/);
  });

  it('stop every part even when one fails, and say what failed', async () => {
    const parts = startedParts();
    const stopped: string[] = [];
    parts.started({ stop: () => void stopped.push('first') });
    parts.started({
      stop: () => {
        throw new Error('the pool would not close');
      },
    });
    parts.started({ stop: () => void stopped.push('last') });
    await expect(parts.stop(0)).rejects.toThrow('the pool would not close');
    expect(stopped).toEqual(['last', 'first']);
  });

  it('stop what started when a later part fails to start, and pass the failure on', async () => {
    const parts = startedParts();
    const stopped: string[] = [];
    const starting = parts.orUndo(async () => {
      parts.started({ stop: () => void stopped.push('storage') });
      parts.started({ stop: () => void stopped.push('upstream') });
      await Promise.resolve();
      throw new Error('port 8080 is taken');
    });
    await expect(starting).rejects.toThrow('port 8080 is taken');
    expect(stopped).toEqual(['upstream', 'storage']);
  });
});
