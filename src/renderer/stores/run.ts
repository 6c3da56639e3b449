import { create } from 'zustand';
import { addUsage, type TokenUsage } from '../../shared/imageParams';
import type { LiveRun } from '../../shared/admin';
import { ERROR_CODES } from '../../shared/errors';
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
  /**
   * Takes up a run the gateway is still making (a page closed or reloaded mid-run): its images
   * from where it is, then its end. Only when this store has no run of its own.
   */
  attach: (live: LiveRun) => Promise<void>;
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
  /** A run's events after `after` (GET /api/admin/runs/:runId/events), read to its end. */
  follow: (
    runId: string,
    after: number,
    requestId: string | null,
    handlers: ImageCallHandlers,
    signal: AbortSignal,
  ) => Promise<ImageCallResult>;
}

/** How often one run's dropped stream is taken up again from its last event before giving up. */
const MAX_RESUMES = 3;

/** A stream that broke off mid-way (the connection dropped), not an answer the gateway gave. */
const droppedStream = (error: unknown) => error instanceof TypeError;

/** The sum of the delivered images' usages; null when none said. */
function usageOfSlots(slots: ImageSlot[]): TokenUsage | null {
  return slots.reduce<TokenUsage | null>(
    (sum, slot) => (slot.usage ? (sum ? addUsage(sum, slot.usage) : slot.usage) : sum),
    null,
  );
}

/** What a run the studio came back to can be sent again as (an edit's images are not kept). */
function requestOf(live: LiveRun): RunRequest | null {
  if (live.endpoint !== 'generations') return null;
  return {
    call: {
      endpoint: 'generations',
      body: {
        model: live.model,
        prompt: live.prompt,
        size: live.size,
        quality: live.quality,
        n: live.n,
        stream: true,
      },
    },
    n: live.n,
    model: live.model,
    prompt: live.prompt,
    requestedSize: live.size,
  };
}

const browserDeps: RunDeps = {
  run: gateway.runImages,
  follow: gateway.followRun,
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

    /**
     * Runs `first` (the request itself, or following a run the gateway already has) into the
     * slots to its end. A stream that drops mid-way is taken up again after its last event: the
     * gateway keeps the studio's runs as jobs, so nothing of it is lost.
     */
    const follow = async (
      run: { id: string; requestId: string | null; n: number; startedAt: number },
      request: RunRequest | null,
      first: (handlers: ImageCallHandlers, signal: AbortSignal) => Promise<ImageCallResult>,
    ) => {
      const { id: runId, n, startedAt } = run;
      stop();
      const current = ++generation;
      const own = new AbortController();
      controller = own;
      revokeAll(get().slots);
      set({
        runId,
        upstreamStopped: null,
        phase: 'running',
        slots: waitingSlots(n),
        startedAt,
        finishedAt: null,
        usage: null,
        requestId: null,
        error: null,
        request,
      });
      let lastSequence = -1;
      const handlers: ImageCallHandlers = {
        onPartial: ({ imageIndex, blob }) =>
          updateSlot(current, imageIndex, (slot) =>
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
          updateSlot(current, image.imageIndex, (slot) => ({
            ...slot,
            state: 'done',
            url: deps.createUrl(image.blob),
            blob: image.blob,
            size: image.size,
            outputFormat: image.outputFormat,
            usage: image.usage,
          })),
        onSequence: (sequenceNumber) => {
          lastSequence = sequenceNumber;
        },
      };
      try {
        let result: ImageCallResult | null = null;
        let resumed = false;
        for (let resumes = 0; result === null; resumes += 1) {
          try {
            result =
              resumes === 0
                ? await first(handlers, own.signal)
                : await deps.follow(runId, lastSequence, run.requestId, handlers, own.signal);
          } catch (error) {
            if (own.signal.aborted || !droppedStream(error) || resumes >= MAX_RESUMES) throw error;
            resumed = true;
          }
        }
        if (current !== generation) return;
        const missing = get().slots.filter((s) => s.state !== 'done').length;
        set({
          phase: missing > 0 ? 'error' : 'done',
          finishedAt: deps.now(),
          // A resumed stream's own total counts only its part: the images' usages are whole.
          usage: resumed ? usageOfSlots(get().slots) : result.usage,
          requestId: result.requestId,
          error:
            missing > 0
              ? {
                  status: 0,
                  message: `The reply ended with ${missing} of ${n} images missing`,
                  param: null,
                  code: null,
                  type: null,
                  requestId: result.requestId,
                }
              : null,
        });
      } catch (error) {
        if (current !== generation) return;
        if (own.signal.aborted) {
          set({ phase: 'cancelled', finishedAt: deps.now() });
          return;
        }
        // Cancelled from another page (the gateway's run outlives each page): not a failure.
        if (error instanceof GatewayError && error.code === ERROR_CODES.cancelled) {
          set({ phase: 'cancelled', finishedAt: deps.now(), upstreamStopped: true });
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
        const runId = deps.newRunId();
        const run = { id: runId, requestId: null, n: request.n, startedAt: deps.now() };
        await follow(run, request, (handlers, signal) =>
          deps.run({ ...request.call, runId, signal }, handlers),
        );
      },

      attach: async (live) => {
        if (controller || get().phase === 'running') return;
        const run = {
          id: live.runId,
          requestId: live.requestId,
          n: live.n,
          startedAt: live.createdAt,
        };
        await follow(run, requestOf(live), (handlers, signal) =>
          deps.follow(live.runId, -1, live.requestId, handlers, signal),
        );
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

/**
 * When the studio opens (a reload, a window closed mid-run): each page's newest run the gateway is
 * still making is taken up again, so its images appear from where it is.
 */
export async function resumeLiveRuns(
  list: () => Promise<LiveRun[]> = () => admin.liveRuns(),
  stores: Record<LiveRun['endpoint'], ReturnType<typeof createRunStore>> = {
    generations: useGenerateRun,
    edits: useEditRun,
  },
): Promise<void> {
  // Without the list (an older gateway, no answer) the pages simply start idle.
  const runs = await list().catch(() => []);
  for (const endpoint of ['generations', 'edits'] as const) {
    const newest = runs.filter((run) => run.endpoint === endpoint).at(-1);
    if (newest) void stores[endpoint].getState().attach(newest);
  }
}
