import { create } from 'zustand';
import type { TokenUsage } from '../../shared/imageParams';
import { admin } from '../lib/api/admin';
import { GatewayError, type GatewayErrorInfo } from '../lib/api/errors';
import type { ImageCall, ImageCallHandlers, ImageCallResult } from '../lib/api/imageCall';
import { gateway } from '../lib/api/images';
import { createObjectUrl, retireObjectUrl } from '../lib/objectUrls';

/**
 * One image request at a time (Generate has one, Edit has one): its image slots filling with
 * partial then final images as they stream, elapsed time, usage, error, cancel and retry.
 */
export type RunPhase = 'idle' | 'running' | 'done' | 'error' | 'cancelled';

export interface ImageSlot {
  index: number;
  state: 'waiting' | 'partial' | 'done';
  /** Partial images received so far. */
  partials: number;
  /** Object URL of the latest partial, then of the final image. */
  url: string | null;
  blob: Blob | null;
  /** As delivered. */
  size: string | null;
  outputFormat: string | null;
  usage: TokenUsage | null;
}

/** Everything needed to send (and re-send) a request, and to describe it. */
export interface RunRequest {
  call: Omit<ImageCall, 'signal'>;
  n: number;
  model: string;
  prompt: string;
  requestedSize: string;
}

export interface RunState {
  phase: RunPhase;
  slots: ImageSlot[];
  startedAt: number | null;
  finishedAt: number | null;
  usage: TokenUsage | null;
  requestId: string | null;
  error: GatewayErrorInfo | null;
  request: RunRequest | null;
  /** The id the gateway knows this run by (`x-atelier-run`), to stop its upstream work. */
  runId: string | null;
  /**
   * After Cancel: true once the gateway stopped the upstream work, false when it had already
   * finished it (the image is then billed and kept), null while unknown.
   */
  upstreamStopped: boolean | null;
  start: (request: RunRequest) => Promise<void>;
  cancel: () => void;
  retry: () => Promise<void>;
  clear: () => void;
}

export interface RunDeps {
  run: (call: ImageCall, handlers: ImageCallHandlers) => Promise<ImageCallResult>;
  now: () => number;
  createUrl: (blob: Blob) => string;
  revokeUrl: (url: string) => void;
  /** Stops a run's upstream work at the gateway; resolves whether any was still going. */
  cancelUpstream: (runId: string) => Promise<boolean>;
  newRunId: () => string;
}

const browserDeps: RunDeps = {
  run: gateway.runImages,
  cancelUpstream: (runId) => admin.cancelRun(runId),
  newRunId: () => crypto.randomUUID(),
  now: () => Date.now(),
  createUrl: createObjectUrl,
  revokeUrl: retireObjectUrl,
};

function waitingSlots(n: number): ImageSlot[] {
  return Array.from({ length: n }, (_, index) => ({
    index,
    state: 'waiting',
    partials: 0,
    url: null,
    blob: null,
    size: null,
    outputFormat: null,
    usage: null,
  }));
}

export function createRunStore(deps: RunDeps = browserDeps) {
  let controller: AbortController | null = null;
  /** Callbacks of a superseded run must not touch the state of the current one. */
  let generation = 0;

  return create<RunState>()((set, get) => {
    /**
     * Ends the run in flight: the fetch is aborted at once (the page stops waiting), and the
     * gateway is told to stop the upstream work, which a closed connection alone never does.
     */
    const stop = () => {
      if (!controller) return;
      controller.abort();
      controller = null;
      const { runId } = get();
      if (!runId) return;
      const run = generation;
      deps.cancelUpstream(runId).then(
        (stopped) => {
          if (run === generation) set({ upstreamStopped: stopped });
        },
        () => {
          if (run === generation) set({ upstreamStopped: false });
        },
      );
    };

    const revokeAll = (slots: ImageSlot[]) => {
      for (const slot of slots) if (slot.url) deps.revokeUrl(slot.url);
    };

    const updateSlot = (run: number, index: number, change: (slot: ImageSlot) => ImageSlot) => {
      if (run !== generation) return;
      set((state) => {
        const slots = [...state.slots];
        // A gateway that sends more images than asked still gets them shown.
        while (slots.length <= index)
          slots.push(...waitingSlots(1).map((s) => ({ ...s, index: slots.length })));
        const previous = slots[index]!;
        const next = change(previous);
        if (previous.url && previous.url !== next.url) deps.revokeUrl(previous.url);
        slots[index] = next;
        return { slots };
      });
    };

    return {
      phase: 'idle',
      slots: [],
      startedAt: null,
      finishedAt: null,
      usage: null,
      requestId: null,
      error: null,
      request: null,
      runId: null,
      upstreamStopped: null,

      start: async (request) => {
        stop();
        const run = ++generation;
        const own = new AbortController();
        controller = own;
        const runId = deps.newRunId();
        revokeAll(get().slots);
        set({
          runId,
          upstreamStopped: null,
          phase: 'running',
          slots: waitingSlots(request.n),
          startedAt: deps.now(),
          finishedAt: null,
          usage: null,
          requestId: null,
          error: null,
          request,
        });
        try {
          const result = await deps.run(
            { ...request.call, runId, signal: own.signal },
            {
              onPartial: ({ imageIndex, blob }) =>
                updateSlot(run, imageIndex, (slot) =>
                  // A partial arriving after the final image (never expected) must not replace it.
                  slot.state === 'done'
                    ? slot
                    : {
                        ...slot,
                        state: 'partial',
                        partials: slot.partials + 1,
                        url: deps.createUrl(blob),
                        blob,
                      },
                ),
              onImage: (image) =>
                updateSlot(run, image.imageIndex, (slot) => ({
                  ...slot,
                  state: 'done',
                  url: deps.createUrl(image.blob),
                  blob: image.blob,
                  size: image.size,
                  outputFormat: image.outputFormat,
                  usage: image.usage,
                })),
            },
          );
          if (run !== generation) return;
          const missing = get().slots.filter((s) => s.state !== 'done').length;
          set({
            phase: missing > 0 ? 'error' : 'done',
            finishedAt: deps.now(),
            usage: result.usage,
            requestId: result.requestId,
            error:
              missing > 0
                ? {
                    status: 0,
                    message: `The reply ended with ${missing} of ${request.n} images missing`,
                    param: null,
                    code: null,
                    type: null,
                    requestId: result.requestId,
                  }
                : null,
          });
        } catch (error) {
          if (run !== generation) return;
          if (own.signal.aborted) {
            set({ phase: 'cancelled', finishedAt: deps.now() });
            return;
          }
          const info =
            error instanceof GatewayError
              ? error.toInfo()
              : {
                  status: 0,
                  message: error instanceof Error ? error.message : String(error),
                  param: null,
                  code: null,
                  type: null,
                  requestId: null,
                };
          set({ phase: 'error', finishedAt: deps.now(), error: info, requestId: info.requestId });
        } finally {
          if (controller === own) controller = null;
        }
      },

      cancel: stop,

      retry: async () => {
        const request = get().request;
        if (request) await get().start(request);
      },

      clear: () => {
        stop();
        generation += 1;
        revokeAll(get().slots);
        set({
          phase: 'idle',
          slots: [],
          startedAt: null,
          finishedAt: null,
          usage: null,
          requestId: null,
          error: null,
        });
      },
    };
  });
}

export const useGenerateRun = createRunStore();
export const useEditRun = createRunStore();
