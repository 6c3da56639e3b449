import type { ContentCategory } from './categories';
import type { Match } from './matcher';
import { BREAK_TOKENS } from './normalize';
import { FEMALE_WORDS, MALE_WORDS, WORD_CLASSES } from './terms/classes';
import { SEXUAL_CUES, STRONG_SEXUAL, type Tag } from './terms/tags';

/**
 * The decision: which category, if any, the matched terms add up to. Categories are tried in a
 * fixed order (sexual_minors, non_consensual_sexual, explicit_sexual, then
 * illegal_hateful_extreme_violence), so a prompt that is both explicit and about a minor is
 * reported as sexual_minors.
 */

export interface RuleHit {
  category: ContentCategory;
  reason: string;
}

/** Coercion and sexual content count together within this many tokens (about a sentence). */
export const NC_WINDOW = 14;
/** Instructions and a weapon count together within this many tokens. */
const INSTRUCTION_WINDOW = 8;

const VULNERABLE: ReadonlySet<string> = new Set(WORD_CLASSES.vulnerable);
const VICTIMS: ReadonlySet<string> = new Set(WORD_CLASSES.victim);
const OBJECT_FILLERS: ReadonlySet<string> = new Set([...WORD_CLASSES.objectFiller!, 'of']);

/** Between a group and "as"/"are": "Jewish people who are ...". */
const GROUP_GAP: ReadonlySet<string> = new Set(['who', 'that', 'all', 'these', 'those', 'always']);
/** Between "as"/"are" and the comparison: "as filthy rats". */
// prettier-ignore
const INSULT_GAP: ReadonlySet<string> = new Set([
  'a', 'an', 'the', 'filthy', 'dirty', 'disgusting', 'mere', 'just', 'nothing', 'but', 'literal',
  'literally', 'evil', 'vile', 'stinking', 'all', 'nasty', 'real', 'little', 'dumb', 'stupid',
  'greedy', 'scheming', 'diseased', 'invading', 'swarming', 'of',
]);
/** Between "death to" and the group: "exterminate all the ...". */
// prettier-ignore
const VICTIM_DETERMINERS: ReadonlySet<string> = new Set(['the', 'all', 'every', 'those', 'these', 'of']);
/** Between a glorifying verb and a perpetrator: "glorifying the brave 9/11 hijackers". */
// prettier-ignore
const GLORIFY_GAP: ReadonlySet<string> = new Set([
  'the', 'a', 'an', 'this', 'that', 'these', 'those', 'of', 'to', 'our', 'their', 'his', 'her',
  'famous', 'infamous', 'legendary', 'brave', 'glorious', 'great', 'heroic', 'holy', 'recent',
  'latest', 'last', 'mighty', 'righteous', 'martyred', 'as',
]);
/** A perpetrator word used as a modifier: "Holocaust survivors", "school shooting victims". */
// prettier-ignore
const PERP_AS_MODIFIER: ReadonlySet<string> = new Set([
  'survivors', 'survivor', 'victims', 'victim', 'memorial', 'museum', 'remembrance', 'day',
  'education', 'history', 'awareness', 'prevention', 'studies', 'documentary', 'drill', 'drills',
  'preparedness', 'response', 'vigil', 'monument', 'exhibit', 'exhibition', 'denial', 'deniers',
]);
/** Between recruitment and an organisation: "recruitment poster for ISIS". */
// prettier-ignore
const RECRUIT_GAP: ReadonlySet<string> = new Set([
  'poster', 'posters', 'video', 'videos', 'flyer', 'flyers', 'propaganda', 'for', 'of', 'to',
  'the', 'a', 'an', 'material', 'campaign', 'ad', 'ads', 'banner', 'leaflet', 'pamphlet', 'now',
  'into', 'up', 'with',
]);

interface Context {
  tokens: readonly string[];
  matches: readonly Match[];
  /** The active matches by tag, in order. */
  byTag: ReadonlyMap<Tag, Match[]>;
  /** Sentence number of each token. */
  sentence: readonly number[];
  /** The match covering each token, if any. */
  at: readonly (Match | undefined)[];
}

export function classify(tokens: readonly string[], matches: readonly Match[]): RuleHit | null {
  const active = matches.filter((m) => !m.negated && !m.entry.tags.has('exempt'));
  const sentence: number[] = [];
  let s = 0;
  for (const token of tokens) {
    sentence.push(s);
    if (token === '.' || token === '\n') s++;
  }
  const at: (Match | undefined)[] = new Array(tokens.length);
  for (const m of active) for (let k = m.start; k < m.end; k++) at[k] = m;
  const byTag = new Map<Tag, Match[]>();
  for (const m of active) {
    for (const tag of m.entry.tags) {
      const list = byTag.get(tag);
      if (list) list.push(m);
      else byTag.set(tag, [m]);
    }
  }
  const ctx: Context = { tokens, matches: active, byTag, sentence, at };

  return (
    sexualMinors(ctx) ?? nonConsensual(ctx) ?? explicitSexual(ctx) ?? hatefulOrViolent(ctx) ?? null
  );
}

// ---------------------------------------------------------------- helpers

const NONE: readonly Match[] = [];

function withTag(ctx: Context, tag: Tag): readonly Match[] {
  return ctx.byTag.get(tag) ?? NONE;
}

/** Matches carrying any of the tags, in prompt order. */
function withAny(ctx: Context, tags: readonly Tag[]): readonly Match[] {
  const found = new Set<Match>();
  for (const tag of tags) for (const m of withTag(ctx, tag)) found.add(m);
  return [...found].sort((a, b) => a.start - b.start);
}

function has(ctx: Context, tag: Tag): boolean {
  return ctx.byTag.has(tag);
}

/** Tokens between two matches (0 when adjacent), in either order. */
function gap(a: Match, b: Match): number {
  return a.start < b.start ? b.start - a.end : a.start - b.end;
}

function sameSentence(ctx: Context, a: Match, b: Match): boolean {
  return ctx.sentence[a.start] === ctx.sentence[b.start];
}

/** What matched, for the reason: the term itself when it is safe to quote, else its kind. */
function describe(m: Match): string {
  if (m.entry.canonical.includes('<u18>')) return 'an age under 18';
  if (!m.entry.echo) return m.entry.kind;
  return `"${m.entry.canonical.replace(/<\w+>/g, '…')}"`;
}

/**
 * Awareness material (a hotline sign, a prevention poster) may name sexual violence; it lifts an
 * awareOk term when an awareness word shares its sentence and nothing else is sexual.
 */
function awarenessLifts(ctx: Context, m: Match): boolean {
  if (!m.entry.awareOk) return false;
  if (!withTag(ctx, 'aware').some((a) => sameSentence(ctx, a, m))) return false;
  return !SEXUAL_CUES.some((tag) => withTag(ctx, tag).some((o) => o !== m && !o.entry.awareOk));
}

/**
 * Classical art: the nudity word sits right next to the artwork, which comes just before it
 * ("a statue of a nude", "Titian's reclining nude": up to three words between) or just after it
 * ("a nude marble statue": up to two), or "... by Titian" follows; a classical marker is
 * somewhere in the prompt; and nothing asks for a real-looking person. So "a nude woman next to
 * a marble statue" is not lifted.
 */
function artLifts(ctx: Context, m: Match): boolean {
  if (has(ctx, 'photoreal')) return false;
  if (!has(ctx, 'artClassic') && !has(ctx, 'artist')) return false;
  return [...withTag(ctx, 'artObject'), ...withTag(ctx, 'artist')].some((o) => {
    if (!sameSentence(ctx, o, m)) return false;
    if (o.end <= m.start) return m.start - o.end <= 3;
    if (o.start >= m.end && o.entry.tags.has('artObject')) return o.start - m.end <= 2;
    return o.start >= m.end && ctx.tokens[o.start - 1] === 'by' && o.start - m.end <= 6;
  });
}

/** Gore and torture in old-master art (Titian's Flaying of Marsyas): a looser test. */
function artLiftsViolence(ctx: Context): boolean {
  if (has(ctx, 'photoreal')) return false;
  return (has(ctx, 'artClassic') && has(ctx, 'artObject')) || has(ctx, 'artist');
}

/** Scans forward from `from` over gap words; returns the first match found, if it is near. */
function nextMatch(
  ctx: Context,
  from: number,
  maxGap: number,
  gapWords: ReadonlySet<string>,
): Match | undefined {
  for (let k = from; k < ctx.tokens.length && k - from <= maxGap; k++) {
    const covering = ctx.at[k];
    if (covering) return covering;
    if (!gapWords.has(ctx.tokens[k]!)) return undefined;
  }
  return undefined;
}

/** Scans forward for a token in `targets`, over `gapWords`. */
function nextWordIn(
  ctx: Context,
  from: number,
  maxGap: number,
  targets: ReadonlySet<string>,
  gapWords: ReadonlySet<string>,
): boolean {
  for (let k = from; k < ctx.tokens.length && k - from <= maxGap; k++) {
    const token = ctx.tokens[k]!;
    if (targets.has(token)) return true;
    if (!gapWords.has(token)) return false;
  }
  return false;
}

/** Scans backward from `from` (exclusive) for a token in `targets`, over `gapWords`. */
function prevWordIn(
  ctx: Context,
  from: number,
  maxGap: number,
  targets: ReadonlySet<string>,
  gapWords: ReadonlySet<string>,
): boolean {
  for (let k = from - 1; k >= 0 && from - 1 - k <= maxGap; k--) {
    const token = ctx.tokens[k]!;
    if (targets.has(token)) return true;
    if (!gapWords.has(token)) return false;
  }
  return false;
}

// ---------------------------------------------------------------- categories

function sexualMinors(ctx: Context): RuleHit | null {
  for (const m of withTag(ctx, 'csam')) {
    if (awarenessLifts(ctx, m)) continue;
    return { category: 'sexual_minors', reason: describe(m) };
  }
  // "in A minor" is a key when the prompt is about music
  const music = has(ctx, 'music');
  const minor = withTag(ctx, 'minor').find((m) => !(music && m.entry.canonical === 'a minor'));
  if (!minor) return null;
  // Art and medical context never lift anything next to a minor cue.
  const sexual = withAny(ctx, SEXUAL_CUES).find((m) => !awarenessLifts(ctx, m));
  if (!sexual) return null;
  return {
    category: 'sexual_minors',
    reason: `${describe(minor)} together with sexual or suggestive content (${describe(sexual)})`,
  };
}

function nonConsensual(ctx: Context): RuleHit | null {
  for (const m of withTag(ctx, 'ncStrong')) {
    if (awarenessLifts(ctx, m)) continue;
    return { category: 'non_consensual_sexual', reason: describe(m) };
  }
  const cues = withTag(ctx, 'ncCue');
  // nudity in a classical artwork is not sexual content for this rule either
  const sexual = (cues.length > 0 ? withAny(ctx, STRONG_SEXUAL) : NONE).filter(
    (m) => !(m.entry.tags.has('nudity') || m.entry.tags.has('topless')) || !artLifts(ctx, m),
  );
  for (const cue of cues) {
    const near = sexual.find((m) => m !== cue && gap(cue, m) <= NC_WINDOW);
    if (near) {
      return {
        category: 'non_consensual_sexual',
        reason: `coercion or incapacity (${describe(cue)}) next to sexual content (${describe(near)})`,
      };
    }
  }
  return null;
}

function explicitSexual(ctx: Context): RuleHit | null {
  const hit = (m: Match): RuleHit => ({ category: 'explicit_sexual', reason: describe(m) });
  const parental = has(ctx, 'parental');
  for (const m of withTag(ctx, 'explicit')) {
    // the "Parental Advisory: Explicit Content" label is a graphic-design staple
    if (parental && m.entry.canonical.startsWith('explicit')) continue;
    return hit(m);
  }
  const act = withTag(ctx, 'sexact')[0];
  if (act) return hit(act);
  const genital = withTag(ctx, 'genital')[0];
  if (genital && !has(ctx, 'medical')) return hit(genital);
  for (const m of withTag(ctx, 'nudity')) if (!artLifts(ctx, m)) return hit(m);
  for (const m of withTag(ctx, 'topless')) {
    if (artLifts(ctx, m)) continue;
    const male = ctx.tokens.some((t) => MALE_WORDS.has(t));
    const female = ctx.tokens.some((t) => FEMALE_WORDS.has(t));
    if (male && !female) continue;
    return hit(m);
  }
  return null;
}

function hatefulOrViolent(ctx: Context): RuleHit | null {
  const hit = (reason: string): RuleHit => ({
    category: 'illegal_hateful_extreme_violence',
    reason,
  });
  const documentary = (m: Match) =>
    withTag(ctx, 'documentary').some((d) => sameSentence(ctx, d, m));

  if (has(ctx, 'slur')) return hit('a slur against a protected group');
  const cue = withTag(ctx, 'hateCue')[0];
  if (cue) return hit('a request for slurs against a protected group');

  for (const g of withTag(ctx, 'group')) {
    // "Jewish people as rats", "immigrants portrayed as vermin", "Muslims are cockroaches"
    const cmp = nextMatch(ctx, g.end, 1, GROUP_GAP);
    if (cmp?.entry.tags.has('compare')) {
      const insult = nextMatch(ctx, cmp.end, 3, INSULT_GAP);
      if (insult?.entry.tags.has('dehuman')) {
        return hit(`a dehumanizing comparison of a protected group (${describe(g)})`);
      }
    }
    // "calling immigrants vermin"
    const call = ctx.at[g.start - 1] ?? ctx.at[g.start - 2];
    if (call?.entry.tags.has('callVerb') && g.start - call.end <= 1) {
      const insult = nextMatch(ctx, g.end, 2, INSULT_GAP);
      if (insult?.entry.tags.has('dehuman')) {
        return hit(`a dehumanizing comparison of a protected group (${describe(g)})`);
      }
    }
    // "... must die"
    const post = nextMatch(ctx, g.end, 2, GROUP_GAP);
    if (post?.entry.tags.has('exterminatePost') && !documentary(g)) {
      return hit(`a call for violence against a protected group (${describe(g)})`);
    }
  }
  for (const verb of withTag(ctx, 'exterminate')) {
    // "death to ...", "exterminate all ..."; a museum or memorial naming history is lifted
    const group = nextMatch(ctx, verb.end, 2, VICTIM_DETERMINERS);
    if (group?.entry.tags.has('group') && !documentary(verb)) {
      return hit(`a call for violence against a protected group (${describe(group)})`);
    }
  }

  for (const g of withTag(ctx, 'glorify')) {
    // One unknown word may stand right before the perpetrator: "the Christchurch shooter".
    let target = nextMatch(ctx, g.end, 3, GLORIFY_GAP);
    if (!target) {
      let k = g.end;
      while (k < ctx.tokens.length && k - g.end < 3 && GLORIFY_GAP.has(ctx.tokens[k]!)) k++;
      if (!ctx.at[k] && !BREAK_TOKENS.has(ctx.tokens[k] ?? '.')) target = ctx.at[k + 1];
    }
    if (!target) continue;
    if (!target.entry.tags.has('perp') && !target.entry.tags.has('terrorOrg')) continue;
    if (PERP_AS_MODIFIER.has(ctx.tokens[target.end] ?? '')) continue;
    return hit(`glorification of terrorism or mass killing (${describe(target)})`);
  }
  for (const p of withTag(ctx, 'praisePost')) {
    const before = ctx.at[p.start - 1];
    if (before && (before.entry.tags.has('perp') || before.entry.tags.has('terrorOrg'))) {
      return hit(`glorification of terrorism or mass killing (${describe(before)})`);
    }
  }
  for (const r of withTag(ctx, 'recruit')) {
    const after = nextMatch(ctx, r.end, 4, RECRUIT_GAP);
    const before = ctx.at[r.start - 1];
    const org = after?.entry.tags.has('terrorOrg')
      ? after
      : before?.entry.tags.has('terrorOrg')
        ? before
        : undefined;
    if (org && !documentary(r)) {
      return hit(`recruitment for a violent extremist organisation (${describe(org)})`);
    }
  }

  const making = withTag(ctx, 'instrMake');
  const instructions = has(ctx, 'weapon') ? withAny(ctx, ['instr', 'instrMake']) : NONE;
  const instructed = (target: Match, pool: readonly Match[]) =>
    pool.some(
      (i) =>
        i !== target &&
        sameSentence(ctx, i, target) &&
        (i.end <= target.start
          ? target.start - i.end <= INSTRUCTION_WINDOW
          : i.start >= target.end && i.start - target.end <= 3),
    );
  for (const w of withTag(ctx, 'weapon')) {
    if (instructed(w, instructions)) return hit(`instructions for a weapon (${describe(w)})`);
  }
  for (const d of withTag(ctx, 'drug')) {
    if (instructed(d, making)) return hit(`instructions for making a drug (${describe(d)})`);
  }

  const artViolence = artLiftsViolence(ctx);
  for (const k of withTag(ctx, 'killVerb')) {
    if (nextWordIn(ctx, k.end, 3, VULNERABLE, OBJECT_FILLERS)) {
      return hit('killing or abuse of children or other helpless victims');
    }
  }
  for (const k of withTag(ctx, 'killPassive')) {
    if (prevWordIn(ctx, k.start, 3, VULNERABLE, OBJECT_FILLERS)) {
      return hit('killing or abuse of children or other helpless victims');
    }
  }
  if (!artViolence) {
    for (const t of withTag(ctx, 'tortureVerb')) {
      if (nextWordIn(ctx, t.end, 3, VICTIMS, OBJECT_FILLERS))
        return hit('torture of a person or animal');
    }
    for (const t of withTag(ctx, 'torturePassive')) {
      if (prevWordIn(ctx, t.start, 4, VICTIMS, OBJECT_FILLERS))
        return hit('torture of a person or animal');
    }
    for (const e of withTag(ctx, 'execVerb')) {
      const captive = nextMatch(ctx, e.end, 3, OBJECT_FILLERS);
      if (captive?.entry.tags.has('captive')) return hit('the execution of captives');
    }
    const strong = withTag(ctx, 'goreStrong')[0];
    if (strong) return hit(describe(strong));
  }
  const nouns = withTag(ctx, 'goreNoun');
  for (const i of withTag(ctx, 'goreIntens')) {
    if (nouns.some((n) => n !== i && gap(i, n) <= 3 && sameSentence(ctx, i, n))) {
      return hit('extreme gore');
    }
  }
  return null;
}
