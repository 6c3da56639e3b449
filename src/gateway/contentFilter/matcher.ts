import type { Entry, Lexicon, TrieNode } from './lexicon';

export interface Match {
  entry: Entry;
  /** Token range [start, end). */
  start: number;
  end: number;
  /** Set by negation.ts. */
  negated: boolean;
}

/** "0" to "17": numbers that are also `<u18>`. */
function isUnder18(token: string): boolean {
  const a = token.charCodeAt(0) - 48;
  if (a < 0 || a > 9) return false;
  if (token.length === 1) return true;
  const b = token.charCodeAt(1) - 48;
  return token.length === 2 && b >= 0 && b <= 9 && a * 10 + b < 18;
}

/**
 * Leftmost-longest phrase matching over the tokens. Matches never overlap: an exempt phrase
 * ("nude lipstick") hides the words inside it from every shorter phrase ("nude"). A token
 * follows the trie by its own text and by each class it belongs to (`<u18>`, `<nudeColour>`).
 */
export function scan(tokens: readonly string[], lexicon: Lexicon): Match[] {
  const { classesOf } = lexicon;
  const matches: Match[] = [];
  const n = tokens.length;
  const best: { end: number; entry: Entry | null } = { end: 0, entry: null };

  const visit = (child: TrieNode, j: number): void => {
    if (child.entry && j + 1 > best.end) {
      best.end = j + 1;
      best.entry = child.entry;
    }
    if (child.next.size > 0 && j + 1 < n) walk(child, j + 1);
  };
  const walk = (node: TrieNode, j: number): void => {
    const token = tokens[j]!;
    const own = node.next.get(token);
    if (own) visit(own, j);
    const classes = classesOf.get(token);
    if (classes) {
      for (const name of classes) {
        const child = node.next.get(name);
        if (child) visit(child, j);
      }
    }
    if (isUnder18(token)) {
      const child = node.next.get('<u18>');
      if (child) visit(child, j);
    }
  };

  let i = 0;
  while (i < n) {
    best.end = 0;
    best.entry = null;
    walk(lexicon.root, i);
    if (best.entry) {
      matches.push({ entry: best.entry, start: i, end: best.end, negated: false });
      i = best.end;
    } else {
      i++;
    }
  }
  return matches;
}
