import type { GatewayEvents } from '../core/events';

/** What became of one /v1 request once it is over: its cost and the images the gallery kept. */
export interface RequestOutcome {
  costMicros: number;
  recorded: boolean;
  /** Gallery ids, in image order; empty when the gallery keeps no API images (Settings). */
  imageIds: string[];
}

/**
 * Follows a request's `settled` and `image` events from the moment its id is known (the answer's
 * headers: before its response can close, so before it can settle). Resolves once it settled and
 * the gallery has written `expected` images, or at once after settling when the gallery keeps
 * none; `timeoutMs` after settling it resolves with what it has (a slow disk must not hang a tool).
 */
export function followRequest(
  events: GatewayEvents,
  requestId: string,
  keepsImages: () => boolean,
  timeoutMs = 30_000,
): { outcome(expected: number): Promise<RequestOutcome>; stop(): void } {
  const imageIds: string[] = [];
  let settled: { costMicros: number; recorded: boolean } | null = null;
  let wake: (() => void) | null = null;
  const onSettled = (id: string, costMicros: number, recorded: boolean) => {
    if (id !== requestId) return;
    settled = { costMicros, recorded };
    wake?.();
  };
  const onImage = (imageId: string, id: string) => {
    if (id !== requestId) return;
    imageIds.push(imageId);
    wake?.();
  };
  events.on('settled', onSettled);
  events.on('image', onImage);
  const stop = () => {
    events.off('settled', onSettled);
    events.off('image', onImage);
    wake = null;
  };
  return {
    stop,
    outcome(expected) {
      return new Promise((resolve) => {
        let timer: NodeJS.Timeout | null = null;
        const done = () => {
          if (timer) clearTimeout(timer);
          stop();
          resolve({ ...settled!, imageIds: [...imageIds] });
        };
        wake = () => {
          if (!settled) return;
          if (imageIds.length >= expected || expected === 0 || !keepsImages()) {
            done();
            return;
          }
          timer ??= setTimeout(done, timeoutMs);
        };
        wake();
      });
    },
  };
}
