import { NEGATION_FILLERS } from './terms/context';
import type { Match } from './matcher';

/**
 * Negation: "no nudity, fully clothed", "without any explicit content", "nothing sexual",
 * "nudity: none", "negative prompt: nsfw". A negated term counts for nothing.
 *
 * A negator reaches forward only through filler words ("no explicit nudity") and through other
 * negatable terms joined by or/nor/and ("no nudity or sexual content"). A comma continues the
 * list only when the list also has an or/nor ("no nudity, gore, or violence"): otherwise
 * "no nudity, having sex" would hide the second clause. Anything else, such as a garment, ends
 * it: "no clothes" is itself a nudity phrase, and "no panties, nude" does not negate "nude".
 */

const CONJUNCTIONS: ReadonlySet<string> = new Set(['or', 'nor', 'and']);

function isListable(match: Match): boolean {
  return match.entry.listable;
}
const HARD_STOPS: ReadonlySet<string> = new Set(['.', '\n', ':', '--']);
const REACH = 10;

/** After a colon: "nudity: none", "gore: no". */
// prettier-ignore
const AFTER_COLON: ReadonlySet<string> = new Set([
  'none', 'no', 'false', 'off', 'zero', '0', 'never',
]);
/** Right after the term or its copula: "nudity free", "gore is forbidden". */
// prettier-ignore
const AFTER_TERM: ReadonlySet<string> = new Set([
  'free', 'forbidden', 'prohibited', 'banned', 'excluded', 'disallowed', 'avoided',
]);
/** "nudity is not allowed". */
// prettier-ignore
const NOT_PARTICIPLES: ReadonlySet<string> = new Set([
  'allowed', 'permitted', 'included', 'shown', 'present', 'wanted', 'depicted', 'visible',
  'acceptable', 'ok', 'okay',
]);
const COPULAS: ReadonlySet<string> = new Set(['is', 'are', 'be', 'should', 'must', 'strictly']);

function isNegatable(match: Match): boolean {
  return match.entry.negatable;
}

export function applyNegation(tokens: readonly string[], matches: Match[]): void {
  const at: (Match | undefined)[] = new Array(tokens.length);
  for (const m of matches) for (let k = m.start; k < m.end; k++) at[k] = m;

  markRegions(tokens, matches);

  for (const m of matches) {
    if (m.negated || !isNegatable(m)) continue;
    const before = at[m.start - 1];
    if (before?.entry.tags.has('negAdjacent')) m.negated = true;
    else if (negatedBefore(tokens, at, m)) m.negated = true;
    else if (negatedAfter(tokens, m)) m.negated = true;
  }
}

/** "negative prompt: a, b, c" and "--no a, b": to the end of the line or the next --param. */
function markRegions(tokens: readonly string[], matches: Match[]): void {
  let regionEnd = -1;
  for (const m of matches) {
    if (m.start < regionEnd && isNegatable(m)) m.negated = true;
    if (m.entry.tags.has('negRegion')) {
      let k = m.end;
      while (k < tokens.length && tokens[k] !== '\n' && tokens[k] !== '--') k++;
      regionEnd = k;
    }
  }
}

function negatedBefore(
  tokens: readonly string[],
  at: readonly (Match | undefined)[],
  m: Match,
): boolean {
  const listable = isListable(m);
  // A minor cue is cancelled only by a negator aimed at it: "no children", "not a teen".
  const direct = m.entry.tags.has('minor');
  let sawComma = false;
  let sawOr = false;
  let k = m.start - 1;
  while (k >= 0 && m.start - k <= REACH) {
    const token = tokens[k]!;
    if (HARD_STOPS.has(token)) return false;
    const covering = at[k];
    if (covering) {
      if (covering.entry.tags.has('neg'))
        return !sawComma || sawOr || listHasOrAfter(tokens, at, m);
      if (direct || !isNegatable(covering)) return false;
      if ((sawComma || sawOr) && !isListable(covering)) return false;
      k = covering.start - 1;
      continue;
    }
    if (token === ',' || CONJUNCTIONS.has(token)) {
      // lists are for kinds of content: "no nudity or gore", not "no nudity and a sexy teen"
      if (!listable || direct) return false;
      if (token === ',') sawComma = true;
      else sawOr = true;
    } else if (!NEGATION_FILLERS.has(token)) return false;
    k--;
  }
  return false;
}

/** After a comma-separated item: does the list go on to an "or"/"nor" ("no a, b, or c")? */
function listHasOrAfter(
  tokens: readonly string[],
  at: readonly (Match | undefined)[],
  m: Match,
): boolean {
  let k = m.end;
  while (k < tokens.length && k - m.end <= REACH) {
    const token = tokens[k]!;
    if (token === 'or' || token === 'nor') return true;
    const covering = at[k];
    if (covering && isNegatable(covering)) {
      k = covering.end;
      continue;
    }
    if (token !== ',' && token !== 'and' && !NEGATION_FILLERS.has(token)) return false;
    k++;
  }
  return false;
}

/** "nudity: none", "gore: no", "nudity is not allowed", "nudity-free". */
function negatedAfter(tokens: readonly string[], m: Match): boolean {
  // Only the term right before the colon or copula: walking back over a list would let
  // "a sexy teen, nudity: none" cancel "sexy" and "teen".
  let k = m.end;
  if (tokens[k] === ':') return AFTER_COLON.has(tokens[k + 1] ?? '');
  for (let hops = 0; hops < 2 && COPULAS.has(tokens[k] ?? ''); hops++) k++;
  if (AFTER_TERM.has(tokens[k] ?? '')) return true;
  return tokens[k] === 'not' && NOT_PARTICIPLES.has(tokens[k + 1] ?? '');
}
