import { create } from 'zustand';
import { composePrompt, sanitizeDraft, type PromptDraft } from '../features/generate/composePrompt';
import { readStored, writeStored } from '../lib/storage';

/** A prompt the person sent, to pick again. */
export interface PastPrompt {
  draft: PromptDraft;
  /** The prompt it composed (what the list shows and what makes two entries the same). */
  prompt: string;
  sentAt: number;
}

/** The newest this many are kept. */
export const HISTORY_SIZE = 50;

const KEY = 'atelier.promptHistory.v1';

function load(): PastPrompt[] {
  return (
    readStored<PastPrompt[]>(KEY, (value) =>
      Array.isArray(value)
        ? value.flatMap((entry: unknown) => {
            const o = (typeof entry === 'object' && entry !== null ? entry : {}) as Record<
              string,
              unknown
            >;
            const draft = sanitizeDraft(o.draft);
            const prompt = composePrompt(draft);
            const sentAt = typeof o.sentAt === 'number' ? o.sentAt : 0;
            return prompt ? [{ draft, prompt, sentAt }] : [];
          })
        : null,
    ) ?? []
  ).slice(0, HISTORY_SIZE);
}

/** Adds a sent prompt at the top; the same prompt sent again moves up rather than repeating. */
export function remember(
  history: readonly PastPrompt[],
  draft: PromptDraft,
  now: number,
): PastPrompt[] {
  const prompt = composePrompt(draft);
  if (!prompt) return [...history];
  return [{ draft, prompt, sentAt: now }, ...history.filter((p) => p.prompt !== prompt)].slice(
    0,
    HISTORY_SIZE,
  );
}

interface PromptHistoryState {
  /** Newest first. */
  prompts: PastPrompt[];
  add: (draft: PromptDraft) => void;
}

/** The prompts sent from Generate, kept in this browser (localStorage), newest first. */
export const usePromptHistory = create<PromptHistoryState>()((set, get) => ({
  prompts: load(),
  add: (draft) => {
    const prompts = remember(get().prompts, draft, Date.now());
    set({ prompts });
    writeStored(KEY, prompts);
  },
}));
