/**
 * Prompt text to match tokens. Undoes the usual disguises before any rule looks at the text:
 * case, Unicode compatibility forms (fullwidth, math letters, ligatures), accents and other
 * combining marks, zero-width and other invisible format characters, Cyrillic and Greek
 * look-alikes, leetspeak ("s3x"), masking ("n*de"), spacing and dots ("n u d e", "n.u.d.e") and
 * stretched letters ("sexxxy"). Each repair is kept only when it yields a word of the lexicon,
 * so ordinary text ("3d", "4k", "U S A") passes through unchanged.
 *
 * Output: lower-case words and digit runs, plus punctuation tokens that the rules use as
 * boundaries: "." (sentence end), "\n" (line end), ":", "," and "--" (a Midjourney parameter).
 */

import { prototypeFreeTable } from '../../shared/ownProperty';

export const BREAK_TOKENS: ReadonlySet<string> = new Set(['.', '\n', ':', ',', '--']);

// prettier-ignore
const CONFUSABLES = prototypeFreeTable<string>({
  // Cyrillic
  а: 'a', в: 'b', е: 'e', ё: 'e', к: 'k', м: 'm', н: 'h', о: 'o', р: 'p', с: 'c', т: 't', у: 'y',
  х: 'x', ѕ: 's', і: 'i', ї: 'i', ј: 'j', ԁ: 'd', ԛ: 'q', ԝ: 'w', һ: 'h', ӏ: 'l', ь: 'b',
  // Greek
  α: 'a', β: 'b', ε: 'e', η: 'n', ι: 'i', κ: 'k', ν: 'v', ο: 'o', ρ: 'p', τ: 't', υ: 'u', χ: 'x',
  ω: 'w', ς: 's', σ: 'o',
  // Latin small capitals and friends (NFKD leaves these alone)
  ᴀ: 'a', ʙ: 'b', ᴄ: 'c', ᴅ: 'd', ᴇ: 'e', ɢ: 'g', ʜ: 'h', ɪ: 'i', ᴊ: 'j', ᴋ: 'k', ʟ: 'l', ᴍ: 'm',
  ɴ: 'n', ᴏ: 'o', ᴘ: 'p', ʀ: 'r', ꜱ: 's', ᴛ: 't', ᴜ: 'u', ᴠ: 'v', ᴡ: 'w', ʏ: 'y', ᴢ: 'z', ı: 'i',
  ɑ: 'a', ø: 'o', ß: 'ss', æ: 'ae', œ: 'oe', ð: 'd', þ: 'th', ł: 'l', đ: 'd',
});
const CONFUSABLE_RE = new RegExp(`[${Object.keys(CONFUSABLES).join('')}]`, 'g');

/**
 * Removed outright: combining marks (accents and "zalgo" stacks, after NFKD splits them off),
 * format characters (zero-width space/joiner, soft hyphen, bidi controls), variation selectors,
 * and invisible fillers (Hangul fillers, braille blank, combining grapheme joiner).
 */
const INVISIBLE_RE = /[\p{M}\p{Cf}\u115F\u1160\u3164\uFFA0\u2800]/gu;

// prettier-ignore
const LEET = prototypeFreeTable<string>({
  '0': 'o', '1': 'i', '3': 'e', '4': 'a', '5': 's', '7': 't', '8': 'b', '9': 'g', '@': 'a',
  '$': 's', '!': 'i',
});

/** Leetspeak read as letters; "1" as `one` ("i" or "l"). */
function leetDecode(word: string, one: string): string {
  let out = '';
  for (let i = 0; i < word.length; i++) {
    const c = word[i]!;
    out += c === '1' ? one : (LEET[c] ?? c);
  }
  return out;
}

/** Repairs are pure functions of the word; long prompts repeat words, so results are cached. */
const REPAIR_CACHE_LIMIT = 4096;

export interface NormalizerVocab {
  /** Words a repair may produce (leetspeak, masks, joined letters, collapsed repeats). */
  repairTargets: ReadonlySet<string>;
  /** Repair targets by length, for resolving masks like n*de. */
  maskTargetsByLength: ReadonlyMap<number, readonly string[]>;
}

export type Normalizer = (text: string) => string[];

// Character classes of the tokenizer, by char code.
const enum Kind {
  Other,
  Letter,
  Digit,
  Symbol, // @ $ * # ! : leet or mask characters inside a word
  Separator, // . - _ · • ~ ^ / \ : inside a word they may hide a longer word (n.u.d.e)
}
const KIND = new Uint8Array(0x2030);
for (let c = 97; c <= 122; c++) KIND[c] = Kind.Letter;
for (let c = 48; c <= 57; c++) KIND[c] = Kind.Digit;
for (const ch of '@$*#!') KIND[ch.charCodeAt(0)] = Kind.Symbol;
for (const ch of '.-_·•~^/\\') KIND[ch.charCodeAt(0)] = Kind.Separator;
const kindOf = (code: number): Kind => (code < KIND.length ? (KIND[code] as Kind) : Kind.Other);
const isWordCode = (code: number): boolean => {
  const kind = kindOf(code);
  return kind === Kind.Letter || kind === Kind.Digit || kind === Kind.Symbol;
};

/** "*", "#" and "!" around a word are emphasis or punctuation: **nude**, nude!!! */
const isEdgeSymbol = (code: number): boolean => code === 42 || code === 35 || code === 33;

/** Whether a word has three equal letters in a row ("sexxxy"). */
function hasTriple(word: string): boolean {
  for (let i = 2; i < word.length; i++) {
    const c = word.charCodeAt(i);
    if (c === word.charCodeAt(i - 1) && c === word.charCodeAt(i - 2)) return true;
  }
  return false;
}

/**
 * Every run of three or more equal UTF-16 units cut to `keep` units ("sexxxy" is "sexxy" or
 * "sexy"). One pass, no regex: `/(.)\1{2,}/` backtracks through a backreference per repeat, and
 * a run of a few million letters overflowed the regex engine's stack (a 500).
 */
export function shortenRuns(word: string, keep: 1 | 2): string {
  let out = '';
  let i = 0;
  while (i < word.length) {
    const c = word.charCodeAt(i);
    let j = i + 1;
    while (j < word.length && word.charCodeAt(j) === c) j++;
    const run = j - i;
    out += run >= 3 ? word.slice(i, i + keep) : word.slice(i, j);
    i = j;
  }
  return out;
}

export function createNormalizer(vocab: NormalizerVocab): Normalizer {
  const { repairTargets } = vocab;

  // A letter trie of the repair targets, for reading spelled-out words without building strings.
  const spellRoot: SpellNode = { next: new Map(), word: null };
  for (const word of repairTargets) {
    let node = spellRoot;
    for (const c of word) {
      let child = node.next.get(c);
      if (!child) {
        child = { next: new Map(), word: null };
        node.next.set(c, child);
      }
      node = child;
    }
    node.word = word;
  }

  function resolveMask(word: string): string | null {
    const candidates = vocab.maskTargetsByLength.get(word.length);
    if (!candidates) return null;
    const letters = leetDecode(word, 'i');
    outer: for (const candidate of candidates) {
      for (let i = 0; i < letters.length; i++) {
        const c = letters[i];
        if (c !== '*' && c !== '#' && c !== candidate[i]) continue outer;
      }
      return candidate;
    }
    return null;
  }

  function collapseRepeats(word: string): string | null {
    if (!hasTriple(word)) return null;
    const two = shortenRuns(word, 2);
    if (repairTargets.has(two)) return two;
    const one = shortenRuns(word, 1);
    return repairTargets.has(one) ? one : null;
  }

  const cache = new Map<string, string>();

  /** One word, repaired when a repair yields a lexicon word; otherwise as it was. */
  function repair(word: string, hasLetter: boolean, hasOther: boolean): string {
    if (repairTargets.has(word)) return word;
    const cached = cache.get(word);
    if (cached !== undefined) return cached;
    const repaired = computeRepair(word, hasLetter, hasOther);
    if (cache.size >= REPAIR_CACHE_LIMIT) cache.clear();
    cache.set(word, repaired);
    return repaired;
  }

  function computeRepair(word: string, hasLetter: boolean, hasOther: boolean): string {
    if (hasOther) {
      if (word.includes('*') || word.includes('#')) {
        const masked = resolveMask(word);
        if (masked) return masked;
      }
      if (hasLetter) {
        const asI = leetDecode(word, 'i');
        if (repairTargets.has(asI)) return asI;
        if (word.includes('1')) {
          const asL = leetDecode(word, 'l');
          if (repairTargets.has(asL)) return asL;
        }
        const collapsed = collapseRepeats(asI);
        if (collapsed) return collapsed;
      }
    }
    return collapseRepeats(word) ?? word;
  }

  /** Pushes a repaired word, split into letter runs and digit runs ("16yo" is "16" "yo"). */
  function pushWord(out: string[], word: string): void {
    let start = -1;
    let startKind = Kind.Other;
    for (let i = 0; i <= word.length; i++) {
      const kind = i < word.length ? kindOf(word.charCodeAt(i)) : Kind.Other;
      const wordKind = kind === Kind.Letter || kind === Kind.Digit ? kind : Kind.Other;
      if (wordKind !== startKind) {
        if (start >= 0) out.push(word.slice(start, i));
        start = wordKind === Kind.Other ? -1 : i;
        startKind = wordKind;
      }
    }
  }

  /** A word without separators: the common case is plain letters, handled without regexes. */
  function readWord(word: string, out: string[]): void {
    let letters = 0;
    let others = 0;
    for (let i = 0; i < word.length; i++) {
      const kind = kindOf(word.charCodeAt(i));
      if (kind === Kind.Letter) letters++;
      else others++;
    }
    if (others === 0) {
      out.push(hasTriple(word) ? (collapseRepeats(word) ?? word) : word);
      return;
    }
    if (letters === 0 && !/[*#@$!]/.test(word)) {
      out.push(word);
      return;
    }
    pushWord(out, repair(word, letters > 0, true));
  }

  /** A chunk of word characters and inner separators. Returns whether it ended with "!". */
  function readChunk(chunk: string, hasSeparator: boolean, out: string[]): boolean {
    let start = 0;
    let end = chunk.length;
    while (start < end && isEdgeSymbol(chunk.charCodeAt(start))) start++;
    const exclaimed = chunk.charCodeAt(end - 1) === 33;
    while (end > start && isEdgeSymbol(chunk.charCodeAt(end - 1))) end--;
    if (start >= end) return exclaimed;
    const word = start === 0 && end === chunk.length ? chunk : chunk.slice(start, end);
    if (!hasSeparator) {
      readWord(word, out);
      return exclaimed;
    }
    const pieces: string[] = [];
    let pieceStart = -1;
    for (let k = 0; k <= word.length; k++) {
      const separator = k === word.length || kindOf(word.charCodeAt(k)) === Kind.Separator;
      if (separator && pieceStart >= 0) {
        pieces.push(word.slice(pieceStart, k));
        pieceStart = -1;
      } else if (!separator && pieceStart < 0) {
        pieceStart = k;
      }
    }
    if (word.length <= 60) {
      const joined = pieces.join('');
      const repaired = repair(joined, /[a-z]/.test(joined), /[^a-z]/.test(joined));
      if (repairTargets.has(repaired)) {
        out.push(repaired);
        return exclaimed;
      }
    }
    for (const piece of pieces) readWord(piece, out);
    return exclaimed;
  }

  /** "n u d e", "s 3 x": runs of one-character tokens that spell a lexicon word. */
  function joinSpelledOut(tokens: string[]): string[] {
    const out: string[] = [];
    let i = 0;
    while (i < tokens.length) {
      let bestLength = 0;
      let best = '';
      let node: SpellNode | undefined = spellRoot;
      for (let j = i; j < tokens.length && isSingleChar(tokens[j]!); j++) {
        const c = tokens[j]!;
        node = node.next.get(c === '1' ? 'i' : (LEET[c] ?? c));
        if (!node) break;
        if (node.word && j - i + 1 >= 3) {
          bestLength = j - i + 1;
          best = node.word;
        }
      }
      if (bestLength) {
        out.push(best);
        i += bestLength;
      } else {
        out.push(tokens[i++]!);
      }
    }
    return out;
  }

  return (text: string): string[] => {
    let s = text;
    // eslint-disable-next-line no-control-regex
    if (/[^\x00-\x7f]/.test(s)) {
      s = s.normalize('NFKD').replace(INVISIBLE_RE, '').toLowerCase();
      s = s.replace(CONFUSABLE_RE, (c) => CONFUSABLES[c] ?? c);
    } else {
      s = s.toLowerCase();
    }
    // "15 y/o", "15 y.o."
    if (s.includes('y/') || s.includes('y.')) s = s.replace(/\by\s*[/.]\s*o\b\.?/g, ' yo ');
    // Midjourney's "--no a, b" and "negative: a, b" list things to leave out
    if (s.includes('--'))
      s = s.replace(/--\s*no\b/g, ' -- negativeprompt ').replace(/--(?=[a-z])/g, ' -- ');
    if (s.includes('negative')) s = s.replace(/\bnegative\s*:/g, ' negativeprompt : ');
    // the possessive 's goes ("children's" is "children"); other apostrophes join ("don't")
    if (/['’‘`´]/.test(s)) s = s.replace(/([a-z0-9])['’‘`´]s\b/g, '$1').replace(/['’‘`´]/g, '');

    const out: string[] = [];
    let singles = 0;
    let spelledRun = false;
    const n = s.length;
    let i = 0;
    while (i < n) {
      const code = s.charCodeAt(i);
      if (isWordCode(code)) {
        let j = i + 1;
        let hasSeparator = false;
        while (j < n) {
          const d = s.charCodeAt(j);
          if (isWordCode(d)) {
            j++;
            continue;
          }
          if (kindOf(d) !== Kind.Separator) break;
          let k = j + 1;
          while (k < n && kindOf(s.charCodeAt(k)) === Kind.Separator) k++;
          // "--" between words is a parameter marker, not a hidden word
          if (k >= n || !isWordCode(s.charCodeAt(k)) || s.startsWith('--', j)) break;
          hasSeparator = true;
          j = k;
        }
        const before = out.length;
        if (readChunk(s.slice(i, j), hasSeparator, out)) out.push('.');
        for (let t = before; t < out.length; t++) {
          singles = isSingleChar(out[t]!) ? singles + 1 : 0;
          if (singles >= 3) spelledRun = true;
        }
        i = j;
        continue;
      }
      if (code === 32 || code === 9 || code === 13) {
        i++;
        continue;
      }
      const next = s.charCodeAt(i + 1);
      let token: string | null = null;
      if (code === 10) token = '\n';
      else if (code === 46 || code === 33 || code === 63 || code === 59) token = '.';
      else if (code === 58) token = ':';
      else if (code === 44) token = ',';
      else if (code === 45 && next === 45) {
        token = '--';
        i++;
      } else if ('()[]{}|\u2013\u2014'.includes(s[i]!)) token = ',';
      else if (code === 45 && s.charCodeAt(i - 1) === 32 && next === 32) token = ',';
      if (token !== null && out[out.length - 1] !== token) {
        out.push(token);
        singles = 0;
      }
      i++;
    }
    return spelledRun ? joinSpelledOut(out) : out;
  };
}

interface SpellNode {
  next: Map<string, SpellNode>;
  word: string | null;
}

/** A one-letter or one-digit token: a candidate letter of a spelled-out word. */
function isSingleChar(token: string): boolean {
  if (token.length !== 1) return false;
  const kind = kindOf(token.charCodeAt(0));
  return kind === Kind.Letter || kind === Kind.Digit;
}
