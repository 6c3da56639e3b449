import { create } from 'zustand';
import type { RunState } from './run';
import { createObjectUrl, retireObjectUrl } from '../lib/objectUrls';

/**
 * Every Generate run of this session (memory only, newest first), so a person can go back to an
 * earlier variant, star the keepers and reject the rest. A run's images are copied with their own
 * object URLs: the run store revokes its URLs when the next run starts.
 */
export type Mark = 'star' | 'reject' | null;

export interface PastImage {
  index: number;
  url: string;
  blob: Blob;
  /** False for a preview that never became the final image (a cancelled run's partials). */
  final: boolean;
  mark: Mark;
}

export interface PastRun {
  id: number;
  prompt: string;
  requestedSize: string;
  n: number;
  phase: 'done' | 'error' | 'cancelled';
  startedAt: number;
  finishedAt: number;
  requestId: string | null;
  images: PastImage[];
}

export interface SessionRunsState {
  runs: PastRun[];
  archive: (run: RunState) => void;
  mark: (runId: number, index: number, mark: Mark) => void;
  clear: () => void;
}

export interface SessionRunsDeps {
  createUrl: (blob: Blob) => string;
  revokeUrl: (url: string) => void;
}

/** Older runs drop off (and free their images) beyond this many. */
export const MAX_SESSION_RUNS = 60;

export function createSessionRunsStore(
  deps: SessionRunsDeps = {
    createUrl: createObjectUrl,
    revokeUrl: retireObjectUrl,
  },
) {
  let seq = 0;
  const free = (runs: PastRun[]) => {
    for (const run of runs) for (const image of run.images) deps.revokeUrl(image.url);
  };
  return create<SessionRunsState>()((set, get) => ({
    runs: [],
    archive: (run) => {
      if (run.phase !== 'done' && run.phase !== 'error' && run.phase !== 'cancelled') return;
      if (!run.request || run.startedAt === null) return;
      const images = run.slots.flatMap((slot): PastImage[] =>
        slot.blob
          ? [
              {
                index: slot.index,
                url: deps.createUrl(slot.blob),
                blob: slot.blob,
                final: slot.state === 'done',
                mark: null,
              },
            ]
          : [],
      );
      const past: PastRun = {
        id: ++seq,
        prompt: run.request.prompt,
        requestedSize: run.request.requestedSize,
        n: run.request.n,
        phase: run.phase,
        startedAt: run.startedAt,
        finishedAt: run.finishedAt ?? run.startedAt,
        requestId: run.requestId,
        images,
      };
      const runs = [past, ...get().runs];
      free(runs.slice(MAX_SESSION_RUNS));
      set({ runs: runs.slice(0, MAX_SESSION_RUNS) });
    },
    mark: (runId, index, mark) =>
      set({
        runs: get().runs.map((run) =>
          run.id !== runId
            ? run
            : {
                ...run,
                images: run.images.map((image) =>
                  image.index === index ? { ...image, mark } : image,
                ),
              },
        ),
      }),
    clear: () => {
      free(get().runs);
      set({ runs: [] });
    },
  }));
}

export const useSessionRuns = createSessionRunsStore();
