import { create } from 'zustand';
import type { ImageRecord, StudioRun, StudioRunsResponse } from '../../shared/admin';
import { admin } from '../lib/api/admin';

/**
 * Generate's runs, read from the gateway (GET /api/admin/studio/runs, newest first), so they
 * survive a reload, a restart and a changed port (issue 22). A star is the image's gallery
 * favourite and a reject hides it from the gallery: both are stored by the gateway.
 */
export type Mark = 'star' | 'reject' | null;

export const markOf = (image: Pick<ImageRecord, 'favourite' | 'rejected'>): Mark =>
  image.rejected ? 'reject' : image.favourite ? 'star' : null;

export interface SessionRunsState {
  runs: StudioRun[];
  /** The studio's Generate runs over all pages. */
  total: number;
  loaded: boolean;
  /** Reads the first page again (and as many runs as are shown). */
  load: () => Promise<void>;
  /** Reads the next page. */
  more: () => Promise<void>;
  /** Called when a run ends (RunWatch): its record and images are on their way. */
  archive: (run: unknown) => void;
  mark: (imageId: string, mark: Mark) => Promise<void>;
  /** An image changed elsewhere (the gallery, the viewer) or was deleted (null). */
  replaceImage: (id: string, image: ImageRecord | null) => void;
}

export interface SessionRunsDeps {
  fetchRuns: (query: { limit: number; offset: number }) => Promise<StudioRunsResponse>;
  markImage: (id: string, marks: { favourite: boolean; rejected: boolean }) => Promise<ImageRecord>;
}

/** Runs per page. */
export const RUNS_PAGE = 20;

const MARKS: Record<'star' | 'reject' | 'none', { favourite: boolean; rejected: boolean }> = {
  star: { favourite: true, rejected: false },
  reject: { favourite: false, rejected: true },
  none: { favourite: false, rejected: false },
};

export function createSessionRunsStore(
  deps: SessionRunsDeps = {
    fetchRuns: (query) => admin.studioRuns({ endpoint: 'generations', ...query }),
    markImage: (id, marks) => admin.markImage(id, marks),
  },
) {
  // Loads never overlap: one asked for while another runs is made once it ends, so the newest
  // state always lands last.
  let loading: Promise<void> | null = null;
  let again = false;
  return create<SessionRunsState>()((set, get) => {
    const readFirst = async (): Promise<void> => {
      const limit = Math.max(RUNS_PAGE, get().runs.length);
      const page = await deps.fetchRuns({ limit, offset: 0 });
      set({ runs: page.runs, total: page.total, loaded: true });
    };
    const load = async (): Promise<void> => {
      if (loading) {
        again = true;
        return loading;
      }
      loading = (async () => {
        try {
          do {
            again = false;
            await readFirst();
          } while (again);
        } finally {
          loading = null;
        }
      })();
      return loading;
    };
    const patchImage = (id: string, image: ImageRecord | null) =>
      set({
        runs: get().runs.map((run) =>
          run.images.some((i) => i.id === id)
            ? {
                ...run,
                images: run.images.flatMap((i) => (i.id !== id ? [i] : image ? [image] : [])),
              }
            : run,
        ),
      });
    return {
      runs: [],
      total: 0,
      loaded: false,
      load,
      more: async () => {
        const { runs } = get();
        const page = await deps.fetchRuns({ limit: RUNS_PAGE, offset: runs.length });
        const seen = new Set(runs.map((r) => r.requestId));
        set({
          runs: [...runs, ...page.runs.filter((r) => !seen.has(r.requestId))],
          total: page.total,
        });
      },
      archive: () => void load().catch(() => undefined),
      mark: async (imageId, mark) => {
        const updated = await deps.markImage(imageId, MARKS[mark ?? 'none']);
        patchImage(imageId, updated);
      },
      replaceImage: patchImage,
    };
  });
}

export const useSessionRuns = createSessionRunsStore();
