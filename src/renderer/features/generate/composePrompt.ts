/**
 * The prompt composer: a free description plus optional structure fields (spec 4.1 names
 * subject, environment, camera, style, lighting and constraints as what a prompt describes).
 */
export const STRUCTURE_FIELDS = [
  { key: 'subject', label: 'Subject', hint: 'Who or what: a lighthouse keeper in a yellow coat' },
  { key: 'environment', label: 'Environment', hint: 'Where and when: a rocky coast at dusk' },
  { key: 'camera', label: 'Camera', hint: 'Framing and lens: low angle, 35 mm, shallow depth' },
  { key: 'style', label: 'Style', hint: 'Medium and look: watercolour, loose washes' },
  { key: 'lighting', label: 'Lighting', hint: 'Light and mood: warm rim light, soft fog' },
  { key: 'constraints', label: 'Constraints', hint: 'Must and must not: no text, no logos' },
] as const;

export type StructureKey = (typeof STRUCTURE_FIELDS)[number]['key'];

export interface PromptDraft extends Record<StructureKey, string> {
  text: string;
}

export const EMPTY_DRAFT: PromptDraft = {
  text: '',
  subject: '',
  environment: '',
  camera: '',
  style: '',
  lighting: '',
  constraints: '',
};

/** The gateway refuses longer prompts. */
export const MAX_PROMPT_CHARS = 32_000;

/**
 * The free text first, then one "Label: value." line per filled field, in a fixed order so the
 * same draft always makes the same prompt.
 */
export function composePrompt(draft: PromptDraft): string {
  const text = draft.text.trim();
  const lines = STRUCTURE_FIELDS.flatMap(({ key, label }) => {
    const value = draft[key].trim().replace(/\s+/g, ' ');
    if (!value) return [];
    return [`${label}: ${/[.!?]$/.test(value) ? value : `${value}.`}`];
  });
  return [text, lines.join('\n')].filter(Boolean).join('\n\n');
}

export function hasStructure(draft: PromptDraft): boolean {
  return STRUCTURE_FIELDS.some(({ key }) => draft[key].trim() !== '');
}

/** Why this prompt cannot be sent, or null. */
export function promptProblem(prompt: string): string | null {
  if (prompt.trim() === '')
    return 'Describe the image: write a prompt or fill in a structure field';
  if (prompt.length > MAX_PROMPT_CHARS) {
    return `The prompt is ${prompt.length} characters; at most ${MAX_PROMPT_CHARS} are allowed`;
  }
  return null;
}

export function sanitizeDraft(value: unknown): PromptDraft {
  const v = (typeof value === 'object' && value !== null ? value : {}) as Record<string, unknown>;
  const draft = { ...EMPTY_DRAFT };
  for (const key of Object.keys(EMPTY_DRAFT) as Array<keyof PromptDraft>) {
    if (typeof v[key] === 'string') draft[key] = v[key];
  }
  return draft;
}

/**
 * The fields that say what the picture is of: the artist's own words, which a preset never
 * replaces. The others (camera, style, lighting, constraints) are how it looks: a preset's.
 */
const SUBJECT_FIELDS: ReadonlySet<keyof PromptDraft> = new Set(['text', 'subject', 'environment']);

/**
 * A preset applied to what the artist wrote: its look (camera, style, lighting, constraints) is
 * added where it has one, and the artist's words (the prompt, subject, environment) stay, taking
 * the preset's only where the artist has none. Nothing typed is lost; Undo restores the rest.
 */
export function withPreset(current: PromptDraft, preset: PromptDraft): PromptDraft {
  const merged = { ...current };
  for (const key of Object.keys(EMPTY_DRAFT) as Array<keyof PromptDraft>) {
    const mine = current[key].trim();
    const theirs = preset[key].trim();
    if (!theirs) continue;
    if (SUBJECT_FIELDS.has(key)) merged[key] = mine ? current[key] : preset[key];
    else merged[key] = preset[key];
  }
  return merged;
}
