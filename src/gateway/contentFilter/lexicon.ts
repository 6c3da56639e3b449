import { CONSENT_LISTS } from './terms/consent';
import { CONTEXT_LISTS, NEGATION_FILLERS } from './terms/context';
import { MINOR_LISTS } from './terms/minors';
import { SEXUAL_LISTS } from './terms/sexual';
import { LISTABLE, NEGATABLE, REPAIRED, type Tag } from './terms/tags';
import type { TermList } from './terms/types';
import { VIOLENCE_LISTS } from './terms/violence';
import { WORD_CLASSES } from './terms/classes';
import type { NormalizerVocab } from './normalize';

/**
 * The compiled lexicon: every phrase of every term list in one word trie, so a prompt is
 * scanned once, token by token, whatever the number of phrases.
 */

export interface Entry {
  /** A phrase can sit in more than one list ("diagram" is medical context and instructions). */
  tags: ReadonlySet<Tag>;
  /** The phrase as written in the lexicon, one variant: safe to quote when `echo`. */
  canonical: string;
  kind: string;
  echo: boolean;
  awareOk: boolean;
  /** Precomputed from the tags for negation.ts: whether a negator can cancel it. */
  negatable: boolean;
  /** ... and whether it can stand in a negated list ("no nudity, gore or sex"). */
  listable: boolean;
}

export interface TrieNode {
  next: Map<string, TrieNode>;
  entry: Entry | null;
}

export interface Lexicon {
  root: TrieNode;
  /** Word to the classes it belongs to (`<nudeColour>` ...), numbers aside. */
  classesOf: ReadonlyMap<string, readonly string[]>;
  vocab: NormalizerVocab;
}

export const ALL_LISTS: readonly TermList[] = [
  ...SEXUAL_LISTS,
  ...MINOR_LISTS,
  ...CONSENT_LISTS,
  ...VIOLENCE_LISTS,
  ...CONTEXT_LISTS,
];

const ALNUM_RE = /[a-z]+|[0-9]+/g;

/** Splits a phrase word the way the normalizer splits text: "3d" is "3" "d", "r18" is "r" "18". */
function wordParts(word: string): string[] {
  if (word.startsWith('<')) return [word];
  return word.match(ALNUM_RE) ?? [];
}

/** Every word sequence a phrase stands for: "without ?her|his consent" is three of them. */
function expand(phrase: string): string[][] {
  let sequences: string[][] = [[]];
  for (const slot of phrase.trim().split(/\s+/)) {
    const optional = slot.startsWith('?');
    const alternatives = (optional ? slot.slice(1) : slot).split('|').map(wordParts);
    const next: string[][] = [];
    for (const seq of sequences) {
      if (optional) next.push(seq);
      for (const alt of alternatives) next.push([...seq, ...alt]);
    }
    sequences = next;
  }
  return sequences.filter((seq) => seq.length > 0);
}

export function compileLexicon(lists: readonly TermList[] = ALL_LISTS): Lexicon {
  const root: TrieNode = { next: new Map(), entry: null };
  const repairTargets = new Set<string>();
  const singleWordTargets: string[] = [];

  for (const list of lists) {
    for (const phrase of list.terms) {
      for (const seq of expand(phrase)) {
        let node = root;
        for (const word of seq) {
          let child = node.next.get(word);
          if (!child) {
            child = { next: new Map(), entry: null };
            node.next.set(word, child);
          }
          node = child;
        }
        node.entry = mergeEntry(node.entry, list, seq.join(' '));
        if (REPAIRED.has(list.tag)) {
          for (const word of seq) {
            if (word.length > 2 && !word.startsWith('<') && !NEGATION_FILLERS.has(word)) {
              repairTargets.add(word);
            }
          }
          if (seq.length === 1 && !seq[0]!.startsWith('<')) singleWordTargets.push(seq[0]!);
        }
      }
    }
  }

  const maskTargetsByLength = new Map<number, string[]>();
  for (const word of singleWordTargets) {
    const bucket = maskTargetsByLength.get(word.length) ?? [];
    if (!bucket.includes(word)) bucket.push(word);
    maskTargetsByLength.set(word.length, bucket);
  }

  const classesOf = new Map<string, string[]>();
  for (const [name, words] of Object.entries(WORD_CLASSES)) {
    for (const word of words) {
      const list = classesOf.get(word) ?? [];
      list.push(`<${name}>`);
      classesOf.set(word, list);
    }
  }

  return { root, classesOf, vocab: { repairTargets, maskTargetsByLength } };
}

function withFlags(entry: Omit<Entry, 'negatable' | 'listable'>): Entry {
  const tags = [...entry.tags];
  return {
    ...entry,
    negatable: tags.some((tag) => NEGATABLE.has(tag)),
    listable: tags.some((tag) => LISTABLE.has(tag)),
  };
}

function mergeEntry(existing: Entry | null, list: TermList, canonical: string): Entry {
  if (!existing) {
    return withFlags({
      tags: new Set([list.tag]),
      canonical,
      kind: list.kind,
      echo: list.echo === true,
      awareOk: list.awareOk === true,
    });
  }
  // An exempt phrase must stay exempt only: merging it with a trigger would be a lexicon bug.
  if (existing.tags.has('exempt') !== (list.tag === 'exempt')) {
    throw new Error(`lexicon: "${canonical}" is both exempt and ${list.tag}`);
  }
  const tags = new Set(existing.tags);
  tags.add(list.tag);
  return withFlags({
    tags,
    canonical: existing.canonical,
    kind: existing.kind,
    echo: existing.echo && list.echo === true,
    awareOk: existing.awareOk || list.awareOk === true,
  });
}
