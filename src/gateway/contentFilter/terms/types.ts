import type { Tag } from './tags';

/**
 * The vocabulary of the lexicon: term lists, each under one tag (tags.ts). A phrase is words
 * separated by spaces; in a phrase, `a|b|c` is one slot with alternatives, a slot starting with
 * `?` is optional, and `<name>` is a word class (see classes.ts; `<u18>` is any number under 18,
 * written in digits or words).
 * Phrases are matched against normalised tokens (lower case, no punctuation, no accents, the
 * possessive 's dropped, hyphens split), longest match first, and never across punctuation.
 */
export interface TermList {
  tag: Tag;
  /** A neutral name for what matched, used in the verdict's reason. */
  kind: string;
  /** Whether the reason may quote the canonical term (never for graphic words or slurs). */
  echo?: boolean;
  /** Whether an awareness context (hotline, prevention, survivors) may lift it. */
  awareOk?: boolean;
  terms: readonly string[];
}
