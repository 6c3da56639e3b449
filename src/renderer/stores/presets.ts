import { create } from 'zustand';
import { sanitizeDraft, type PromptDraft } from '../features/generate/composePrompt';
import { sanitizeParams, type ImageParams } from '../features/generate/params';
import { readStored, writeStored } from '../lib/storage';

export interface Preset {
  id: string;
  name: string;
  draft: PromptDraft;
  params: ImageParams;
  createdAt: number;
}

export interface PresetsState {
  presets: Preset[];
  /** Saves under `name`, replacing a preset of the same name. */
  save: (name: string, draft: PromptDraft, params: ImageParams) => Preset;
  remove: (id: string) => void;
}

const KEY = 'atelier.presets.v1';

export function parsePresets(value: unknown): Preset[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((item): Preset[] => {
    if (typeof item !== 'object' || item === null) return [];
    const o = item as Record<string, unknown>;
    if (typeof o.id !== 'string' || typeof o.name !== 'string' || !o.name.trim()) return [];
    return [
      {
        id: o.id,
        name: o.name,
        draft: sanitizeDraft(o.draft),
        params: sanitizeParams(o.params),
        createdAt: typeof o.createdAt === 'number' ? o.createdAt : 0,
      },
    ];
  });
}

export function createPresetsStore(storageKey = KEY, now: () => number = () => Date.now()) {
  return create<PresetsState>()((set, get) => ({
    presets: readStored(storageKey, parsePresets) ?? [],
    save: (name, draft, params) => {
      const trimmed = name.trim();
      const existing = get().presets.find((p) => p.name === trimmed);
      const preset: Preset = {
        id: existing?.id ?? `preset-${now().toString(36)}-${get().presets.length}`,
        name: trimmed,
        draft,
        params,
        createdAt: now(),
      };
      const presets = [...get().presets.filter((p) => p.id !== preset.id), preset].sort((a, b) =>
        a.name.localeCompare(b.name),
      );
      set({ presets });
      writeStored(storageKey, presets);
      return preset;
    },
    remove: (id) => {
      const presets = get().presets.filter((p) => p.id !== id);
      set({ presets });
      writeStored(storageKey, presets);
    },
  }));
}

export const usePresetsStore = createPresetsStore();
