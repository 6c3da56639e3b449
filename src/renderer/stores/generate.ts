import { create } from 'zustand';
import { EMPTY_DRAFT, sanitizeDraft, type PromptDraft } from '../features/generate/composePrompt';
import { DEFAULT_PARAMS, sanitizeParams, type ImageParams } from '../features/generate/params';
import { readStored, writeStored } from '../lib/storage';

/** The Generate form. Kept in localStorage so a reload never loses a long prompt. */
export interface GenerateState {
  draft: PromptDraft;
  params: ImageParams;
  /** The structure fields are open. */
  structured: boolean;
  setDraft: (patch: Partial<PromptDraft>) => void;
  setParams: (patch: Partial<ImageParams>) => void;
  setStructured: (open: boolean) => void;
  apply: (draft: PromptDraft, params: ImageParams) => void;
}

const KEY = 'atelier.generate.v1';

interface Stored {
  draft: PromptDraft;
  params: ImageParams;
  structured: boolean;
}

function load(): Stored {
  return (
    readStored<Stored>(KEY, (v) => {
      const o = (typeof v === 'object' && v !== null ? v : {}) as Record<string, unknown>;
      return {
        draft: sanitizeDraft(o.draft),
        params: sanitizeParams(o.params),
        structured: o.structured === true,
      };
    }) ?? { draft: EMPTY_DRAFT, params: DEFAULT_PARAMS, structured: false }
  );
}

export const useGenerateStore = create<GenerateState>()((set, get) => {
  const save = () => {
    const { draft, params, structured } = get();
    writeStored(KEY, { draft, params, structured });
  };
  return {
    ...load(),
    setDraft: (patch) => {
      set((s) => ({ draft: { ...s.draft, ...patch } }));
      save();
    },
    setParams: (patch) => {
      set((s) => ({ params: { ...s.params, ...patch } }));
      save();
    },
    setStructured: (structured) => {
      set({ structured });
      save();
    },
    apply: (draft, params) => {
      set({ draft, params, structured: Object.entries(draft).some(([k, v]) => k !== 'text' && v) });
      save();
    },
  };
});
