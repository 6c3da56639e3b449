import { create } from 'zustand';
import { sanitizeDraft, type PromptDraft } from '../features/generate/composePrompt';
import { sanitizeParams, type ImageParams } from '../features/generate/params';
import { STARTER_PRESETS, isStarterId } from '../features/generate/starterPresets';
import { readStored, writeStored } from '../lib/storage';

export interface Preset {
  id: string;
  name: string;
  draft: PromptDraft;
  params: ImageParams;
  createdAt: number;
}

/** A preset as the menu lists it: the person's own, or one the studio ships with. */
export interface MenuPreset extends Preset {
  starter: boolean;
}

/** What a removal took away, so Undo can put it back as it was. */
export type RemovedPreset =
  { kind: 'own'; preset: Preset } | { kind: 'starter'; preset: MenuPreset };

export interface PresetsState {
  /** The person's own presets, by name. */
  presets: Preset[];
  /** Ids of the starter presets the person hid. */
  hiddenStarters: string[];
  /** Saves under `name`, replacing a preset of the same name. */
  save: (name: string, draft: PromptDraft, params: ImageParams) => Preset;
  /** Deletes an own preset or hides a starter; null when there is no such preset. */
  remove: (id: string) => RemovedPreset | null;
  /** Undoes a removal (a deleted preset comes back unless one of its name was saved since). */
  restore: (removed: RemovedPreset) => void;
  /** Brings every hidden starter back. */
  showStarters: () => void;
}

const KEY = 'atelier.presets.v1';
const HIDDEN_SUFFIX = '.hiddenStarters';

/** Own presets first (by name), then the starters not hidden, in their shipped order. */
export function menuPresets(state: Pick<PresetsState, 'presets' | 'hiddenStarters'>): MenuPreset[] {
  const hidden = new Set(state.hiddenStarters);
  return [
    ...state.presets.map((p) => ({ ...p, starter: false })),
    ...STARTER_PRESETS.filter((s) => !hidden.has(s.id)).map((s) => ({
      ...s,
      createdAt: 0,
      starter: true,
    })),
  ];
}

function parseHidden(value: unknown): string[] | null {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : null;
}

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
  return create<PresetsState>()((set, get) => {
    const setOwn = (presets: Preset[]) => {
      set({ presets });
      writeStored(storageKey, presets);
    };
    const setHidden = (hiddenStarters: string[]) => {
      set({ hiddenStarters });
      writeStored(storageKey + HIDDEN_SUFFIX, hiddenStarters);
    };
    return {
      presets: readStored(storageKey, parsePresets) ?? [],
      hiddenStarters: readStored(storageKey + HIDDEN_SUFFIX, parseHidden) ?? [],
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
        setOwn(sortByName([...get().presets.filter((p) => p.id !== preset.id), preset]));
        return preset;
      },
      remove: (id) => {
        if (isStarterId(id)) {
          const preset = menuPresets(get()).find((p) => p.id === id);
          if (!preset) return null;
          setHidden([...get().hiddenStarters, id]);
          return { kind: 'starter', preset };
        }
        const preset = get().presets.find((p) => p.id === id);
        if (!preset) return null;
        setOwn(get().presets.filter((p) => p.id !== id));
        return { kind: 'own', preset };
      },
      restore: (removed) => {
        if (removed.kind === 'starter') {
          setHidden(get().hiddenStarters.filter((h) => h !== removed.preset.id));
          return;
        }
        // A preset saved under the same name since the delete is the newer wish: it stays.
        if (get().presets.some((p) => p.name === removed.preset.name)) return;
        setOwn(sortByName([...get().presets, removed.preset]));
      },
      showStarters: () => setHidden([]),
    };
  });
}

const sortByName = (presets: Preset[]) => presets.sort((a, b) => a.name.localeCompare(b.name));

export const usePresetsStore = createPresetsStore();
