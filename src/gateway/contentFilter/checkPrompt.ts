import { ERROR_CODES, ERROR_TYPES } from '../../shared/errors';
import { ApiError } from '../core/errors';
import { CATEGORY_TEXT, type ContentCategory } from './categories';
import { compileLexicon } from './lexicon';
import { scan } from './matcher';
import { applyNegation } from './negation';
import { createNormalizer } from './normalize';
import { classify } from './rules';

/**
 * The content pre-filter (spec 8.3.4): prompts clearly in a disallowed category are refused
 * before anything goes upstream. Rule-based and deterministic: normalize (undo disguises),
 * match the lexicon (terms/*), cancel negated terms ("no nudity"), then decide (rules.ts).
 * Everything is compiled once at load; a check is one linear pass over the prompt.
 */

export type { ContentCategory } from './categories';
export { CONTENT_CATEGORIES } from './categories';

export type FilterMode = 'off' | 'block';

export interface FilterVerdict {
  allowed: boolean;
  category: ContentCategory | null;
  /** A short reason naming what matched, without quoting graphic text. */
  reason: string | null;
}

const lexicon = compileLexicon();
const normalize = createNormalizer(lexicon.vocab);

const ALLOWED: FilterVerdict = Object.freeze({ allowed: true, category: null, reason: null });

export function checkPrompt(prompt: string, mode: FilterMode): FilterVerdict {
  if (mode === 'off' || prompt.length === 0) return ALLOWED;
  const tokens = normalize(prompt);
  const matches = scan(tokens, lexicon);
  applyNegation(tokens, matches);
  const hit = classify(tokens, matches);
  if (!hit) return ALLOWED;
  return { allowed: false, category: hit.category, reason: hit.reason };
}

/**
 * The 400 for a refused prompt. Only for a refusal: an allowed verdict has nothing to report,
 * so passing one is a programming error.
 */
export function contentPolicyError(verdict: FilterVerdict): ApiError {
  if (verdict.allowed || verdict.category === null) {
    throw new Error('contentPolicyError needs a refused verdict');
  }
  const text = CATEGORY_TEXT[verdict.category];
  const matched = verdict.reason ? ` (matched: ${verdict.reason})` : '';
  return new ApiError(
    400,
    `The prompt was refused by the content filter: it appears to ask for ${text.label} ` +
      `[${verdict.category}]${matched}. ${text.advice}`,
    {
      type: ERROR_TYPES.invalidRequest,
      code: ERROR_CODES.contentPolicy,
      param: 'prompt',
    },
  );
}
