/**
 * The content categories the pre-filter refuses (spec 8.3.4). The ids are stable: clients and
 * usage records key off them, so rename a label or an advice line freely but never an id.
 */
export const CONTENT_CATEGORIES = [
  'sexual_minors',
  'non_consensual_sexual',
  'explicit_sexual',
  'illegal_hateful_extreme_violence',
] as const;

export type ContentCategory = (typeof CONTENT_CATEGORIES)[number];

interface CategoryText {
  /** What the category is, in plain words, for the error message. */
  label: string;
  /** What the caller can do about it. */
  advice: string;
}

export const CATEGORY_TEXT: Record<ContentCategory, CategoryText> = {
  sexual_minors: {
    label: 'sexual or suggestive content involving minors or young-looking subjects',
    advice:
      'Remove every sexual or suggestive element; a subject who is, or could be read as, under 18 ' +
      'must never appear in a sexual or suggestive context.',
  },
  non_consensual_sexual: {
    label: 'non-consensual sexual content, coercion or sexual violence',
    advice:
      'Remove it. For romantic scenes, describe consenting adults and state adult, non-explicit, ' +
      'no nudity, fully clothed.',
  },
  explicit_sexual: {
    label: 'explicit nudity or graphic sexual activity',
    advice:
      'For romantic scenes, state adult, non-explicit, no nudity, fully clothed. Nudes in ' +
      'classical sculpture or painting are fine when the prompt describes the artwork.',
  },
  illegal_hateful_extreme_violence: {
    label: 'illegal, hateful or extremely violent content',
    advice:
      'Remove slurs and dehumanizing depictions of groups of people, praise of terrorism or mass ' +
      'killing, instructions for weapons or drugs, and extreme gore or torture.',
  },
};
