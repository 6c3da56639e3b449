/**
 * Every tag a term list can carry, once, with what the rest of the filter needs to know of it.
 * The `Tag` type and the tag sets of the lexicon's repairs, negation and the rules derive from
 * this list, so a new tag is added (and classified) in one place.
 */
interface TagTraits {
  readonly tag: string;
  /**
   * A sexual cue: with a minor anywhere in the prompt it is sexual_minors, and it keeps an
   * awareness context from lifting a term. 'strong' ones are more than suggestive: what a
   * coercion cue must be next to.
   */
  readonly sexual?: 'cue' | 'strong';
  /** A negator can cancel it ("no nudity"). Slurs and groups never are. */
  readonly negatable?: boolean;
  /**
   * It reads as a list after one negator ("no nudity, gore or sexual content"). Descriptions of
   * the subject (sexy, teen, lingerie) do not: they need their own negator.
   */
  readonly listable?: boolean;
  /** Its words are worth recovering from leetspeak, masks and spelled-out letters. */
  readonly repaired?: boolean;
}

// prettier-ignore
export const TAGS = [
  // sexual content
  // mild: sexy, lingerie. Allowed for adults; a sexual context for minors.
  { tag: 'suggestive', sexual: 'cue', negatable: true, repaired: true },
  // the act or idea of sex: sex, sexual, undressing. Also pairs with coercion cues.
  { tag: 'sexual', sexual: 'strong', negatable: true, listable: true, repaired: true },
  { tag: 'nudity', sexual: 'strong', negatable: true, listable: true, repaired: true },
  // nudity unless the subject is only male
  { tag: 'topless', sexual: 'strong', negatable: true, listable: true, repaired: true },
  // graphic sexual activity
  { tag: 'sexact', sexual: 'strong', negatable: true, listable: true, repaired: true },
  // anatomy; allowed in a medical context
  { tag: 'genital', sexual: 'strong', negatable: true, listable: true, repaired: true },
  // a request for explicit/pornographic material as such
  { tag: 'explicit', sexual: 'strong', negatable: true, listable: true, repaired: true },
  // minors
  { tag: 'minor', negatable: true, repaired: true },
  // terms that mean sexual content with minors on their own
  { tag: 'csam', repaired: true },
  // consent
  // non-consensual sexual acts on their own
  { tag: 'ncStrong', sexual: 'cue', negatable: true, listable: true, repaired: true },
  // coercion or incapacity: non-consensual only next to sexual content
  { tag: 'ncCue', negatable: true },
  // hate, extremism, violence
  { tag: 'slur', repaired: true },
  { tag: 'hateCue', negatable: true, listable: true },
  { tag: 'group' },
  { tag: 'dehuman', negatable: true },
  { tag: 'compare' },
  { tag: 'callVerb' },
  { tag: 'exterminate', negatable: true },
  { tag: 'exterminatePost' },
  { tag: 'glorify', negatable: true },
  { tag: 'praisePost' },
  { tag: 'perp' },
  { tag: 'terrorOrg' },
  { tag: 'recruit' },
  { tag: 'instr' },
  { tag: 'instrMake' },
  { tag: 'weapon', negatable: true, listable: true, repaired: true },
  { tag: 'drug', negatable: true, listable: true, repaired: true },
  { tag: 'killVerb', negatable: true },
  { tag: 'killPassive' },
  { tag: 'vulnerable' },
  { tag: 'tortureVerb', negatable: true },
  { tag: 'torturePassive' },
  { tag: 'victim' },
  { tag: 'execVerb' },
  { tag: 'captive' },
  { tag: 'goreStrong', negatable: true, listable: true, repaired: true },
  { tag: 'goreIntens', negatable: true, listable: true },
  { tag: 'goreNoun', negatable: true, listable: true },
  // context
  { tag: 'artObject' },
  { tag: 'artClassic' },
  { tag: 'artist' },
  { tag: 'photoreal' },
  { tag: 'medical' },
  { tag: 'aware' },
  { tag: 'documentary' },
  { tag: 'parental' },
  { tag: 'music' },
  // control
  { tag: 'neg' },
  // "non": negates only the term right after it
  { tag: 'negAdjacent' },
  // "negative prompt": everything after it, to the end of the line, is negated
  { tag: 'negRegion' },
  // a harmless phrase that hides the words inside it from every other rule
  { tag: 'exempt' },
] as const satisfies readonly TagTraits[];

export type Tag = (typeof TAGS)[number]['tag'];

/** The tags with a trait, in the order of TAGS (the rules report the first match in it). */
function tagsWhere(test: (traits: TagTraits) => boolean): readonly Tag[] {
  return TAGS.filter(test).map((traits) => traits.tag);
}

/** Terms a negator can cancel. */
export const NEGATABLE: ReadonlySet<Tag> = new Set(tagsWhere((t) => t.negatable === true));
/** Kinds of content that read as a list after one negator. */
export const LISTABLE: ReadonlySet<Tag> = new Set(tagsWhere((t) => t.listable === true));
/** Lists whose words the normalizer recovers from disguises. */
export const REPAIRED: ReadonlySet<Tag> = new Set(tagsWhere((t) => t.repaired === true));
/** Every sexual cue, suggestive ones included. */
export const SEXUAL_CUES: readonly Tag[] = tagsWhere((t) => t.sexual !== undefined);
/** What a coercion cue must be next to: more than suggestive ("a kidnapped woman in lingerie"). */
export const STRONG_SEXUAL: readonly Tag[] = tagsWhere((t) => t.sexual === 'strong');
