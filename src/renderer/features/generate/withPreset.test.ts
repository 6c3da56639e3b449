import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EMPTY_DRAFT, STRUCTURE_FIELDS, withPreset, type PromptDraft } from './composePrompt';
import { STARTER_PRESETS } from './starterPresets';
import { HISTORY_SIZE, remember } from '../../stores/promptHistory';

const draft = (over: Partial<PromptDraft>): PromptDraft => ({ ...EMPTY_DRAFT, ...over });

describe('withPreset', () => {
  it('a starter adds its look and keeps the words the artist typed', () => {
    const watercolour = STARTER_PRESETS.find((p) => p.id === 'starter-watercolour')!;
    const mine = draft({ text: 'A heron at the river mouth', subject: 'a grey heron' });
    const merged = withPreset(mine, watercolour.draft);
    expect(merged.text).toBe('A heron at the river mouth');
    expect(merged.subject).toBe('a grey heron');
    expect(merged.style).toBe(watercolour.draft.style);
    expect(merged.constraints).toBe(watercolour.draft.constraints);
  });

  it("the preset's words fill only what the artist left empty; its look replaces the look", () => {
    const preset = draft({ text: 'A fox', subject: 'a fox', style: 'ink wash' });
    expect(withPreset(draft({ style: 'oil' }), preset)).toEqual(
      draft({ text: 'A fox', subject: 'a fox', style: 'ink wash' }),
    );
  });

  it('never loses a non-empty text, subject or environment the artist wrote', () => {
    const text = fc.string({ maxLength: 20 });
    const drafts = fc.record(
      Object.fromEntries(
        ['text', ...STRUCTURE_FIELDS.map((f) => f.key)].map((k) => [k, text]),
      ) as Record<keyof PromptDraft, fc.Arbitrary<string>>,
    );
    fc.assert(
      fc.property(drafts, drafts, (mine, preset) => {
        const merged = withPreset(mine, preset);
        for (const key of ['text', 'subject', 'environment'] as const) {
          if (mine[key].trim()) expect(merged[key]).toBe(mine[key]);
        }
        for (const key of Object.keys(EMPTY_DRAFT) as Array<keyof PromptDraft>) {
          if (!preset[key].trim()) expect(merged[key]).toBe(mine[key]);
        }
      }),
    );
  });
});

describe('prompt history', () => {
  it('keeps the newest first, moves a prompt sent again to the top, and holds at most 50', () => {
    let history = remember([], draft({ text: 'one' }), 1);
    history = remember(history, draft({ text: 'two' }), 2);
    history = remember(history, draft({ text: 'one' }), 3);
    expect(history.map((p) => p.prompt)).toEqual(['one', 'two']);
    expect(remember(history, EMPTY_DRAFT, 4)).toHaveLength(2);
    for (let i = 0; i < 80; i++) history = remember(history, draft({ text: `p${i}` }), i);
    expect(history).toHaveLength(HISTORY_SIZE);
    expect(history[0]!.prompt).toBe('p79');
  });
});
