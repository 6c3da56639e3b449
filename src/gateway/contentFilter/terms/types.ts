/**
 * The vocabulary of the lexicon. A phrase is words separated by spaces; in a phrase,
 * `a|b|c` is one slot with alternatives, a slot starting with `?` is optional, and `<name>` is
 * a word class (see classes.ts; `<u18>` is any number under 18, written in digits or words).
 * Phrases are matched against normalised tokens (lower case, no punctuation, no accents, the
 * possessive 's dropped, hyphens split), longest match first, and never across punctuation.
 */
export type Tag =
  // sexual content
  | 'suggestive' // mild: sexy, lingerie. Allowed for adults; a sexual context for minors.
  | 'sexual' // the act or idea of sex: sex, sexual, undressing. Also pairs with coercion cues.
  | 'nudity'
  | 'topless' // nudity unless the subject is only male
  | 'sexact' // graphic sexual activity
  | 'genital' // anatomy; allowed in a medical context
  | 'explicit' // a request for explicit/pornographic material as such
  // minors
  | 'minor'
  | 'csam' // terms that mean sexual content with minors on their own
  // consent
  | 'ncStrong' // non-consensual sexual acts on their own
  | 'ncCue' // coercion or incapacity: non-consensual only next to sexual content
  // hate, extremism, violence
  | 'slur'
  | 'hateCue'
  | 'group'
  | 'dehuman'
  | 'compare'
  | 'callVerb'
  | 'exterminate'
  | 'exterminatePost'
  | 'glorify'
  | 'praisePost'
  | 'perp'
  | 'terrorOrg'
  | 'recruit'
  | 'instr'
  | 'instrMake'
  | 'weapon'
  | 'drug'
  | 'killVerb'
  | 'killPassive'
  | 'vulnerable'
  | 'tortureVerb'
  | 'torturePassive'
  | 'victim'
  | 'execVerb'
  | 'captive'
  | 'goreStrong'
  | 'goreIntens'
  | 'goreNoun'
  // context
  | 'artObject'
  | 'artClassic'
  | 'artist'
  | 'photoreal'
  | 'medical'
  | 'aware'
  | 'documentary'
  | 'parental'
  | 'music'
  // control
  | 'neg'
  | 'negAdjacent' // "non": negates only the term right after it
  | 'negRegion' // "negative prompt": everything after it, to the end of the line, is negated
  | 'exempt'; // a harmless phrase that hides the words inside it from every other rule

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
