/**
 * Every size rule of spec 8.1 checked on its own, so the custom size field can show which of
 * them pass and name each one that fails (the shared checkDimensions stops at the first, which
 * is all the gateway needs). The same limits, the same order and the same words.
 */
import { SIZE_LIMITS, type SizeRule } from '../../../shared/sizeRules';

/** The four rows of the spec's table; the pixel row fails as min_pixels or max_pixels. */
export type ChecklistRow = 'max_edge' | 'multiple_of_16' | 'aspect_ratio' | 'pixels';

export interface RuleResult {
  row: ChecklistRow;
  /** The rule as the gateway names it: for `pixels`, which bound failed (min when it passes). */
  rule: SizeRule;
  ok: boolean;
  /** The rule in a few words, for the checklist. */
  label: string;
  /** Why it fails, in the gateway's words (empty when it passes). */
  message: string;
}

const { maxEdge, multipleOf, maxAspect, minPixels, maxPixels } = SIZE_LIMITS;
const count = (n: number) => n.toLocaleString('en-US');

export function sizeChecklist(width: number, height: number): RuleResult[] {
  const long = Math.max(width, height);
  const short = Math.min(width, height);
  const pixels = width * height;
  const edgeOk = width <= maxEdge && height <= maxEdge;
  const multipleOk = width % multipleOf === 0 && height % multipleOf === 0;
  const aspectOk = short > 0 && long <= maxAspect * short;
  const tooFew = pixels < minPixels;
  const tooMany = pixels > maxPixels;
  return [
    {
      row: 'max_edge',
      rule: 'max_edge',
      ok: edgeOk,
      label: `Each edge at most ${maxEdge} px`,
      message: edgeOk ? '' : `each edge must be at most ${maxEdge} px`,
    },
    {
      row: 'multiple_of_16',
      rule: 'multiple_of_16',
      ok: multipleOk,
      label: `Width and height multiples of ${multipleOf}`,
      message: multipleOk ? '' : `width and height must each be a multiple of ${multipleOf} px`,
    },
    {
      row: 'aspect_ratio',
      rule: 'aspect_ratio',
      ok: aspectOk,
      label: `Long edge at most ${maxAspect}× the short one`,
      message: aspectOk ? '' : `long edge to short edge must be at most ${maxAspect}:1`,
    },
    {
      row: 'pixels',
      rule: tooMany ? 'max_pixels' : 'min_pixels',
      ok: !tooFew && !tooMany,
      label: `${count(minPixels)} to ${count(maxPixels)} pixels (now ${count(pixels)})`,
      message: tooFew
        ? `total pixels ${pixels} is below the minimum ${minPixels}`
        : tooMany
          ? `total pixels ${pixels} is above the maximum ${maxPixels}`
          : '',
    },
  ];
}

/** The failing rules, first to fix first, and one message naming each of them. */
export function sizeFailures(
  width: number,
  height: number,
): { rules: SizeRule[]; message: string } | null {
  const failing = sizeChecklist(width, height).filter((r) => !r.ok);
  if (failing.length === 0) return null;
  return {
    rules: failing.map((r) => r.rule),
    message: `size ${width}x${height}: ${failing.map((r) => r.message).join('; ')}`,
  };
}

const roundTo = (n: number, step: number, how: (x: number) => number) =>
  Math.max(step, how(n / step) * step);

/**
 * The valid size closest in shape to what was typed: edges on the 16 px grid, the ratio within
 * 3:1, the pixel count within bounds. Null when the numbers are not usable at all.
 */
export function nearestValidSize(
  width: number,
  height: number,
): { width: number; height: number } | null {
  if (!(width > 0 && height > 0) || !Number.isFinite(width) || !Number.isFinite(height)) {
    return null;
  }
  // Keep the shape, within the ratio limit.
  let ratio = width / height;
  ratio = Math.min(maxAspect, Math.max(1 / maxAspect, ratio));
  // Scale the area into bounds (and the long edge under the limit), keeping that shape.
  let area = Math.min(maxPixels, Math.max(minPixels, width * height));
  const longLimit = ratio >= 1 ? maxEdge * (maxEdge / ratio) : maxEdge * (maxEdge * ratio);
  area = Math.min(area, longLimit);
  let w = Math.sqrt(area * ratio);
  let h = Math.sqrt(area / ratio);
  // Round to the grid, then nudge by one step at a time until every rule holds.
  w = roundTo(w, multipleOf, Math.round);
  h = roundTo(h, multipleOf, Math.round);
  for (let i = 0; i < 64 && sizeFailures(w, h); i++) {
    const rules = sizeFailures(w, h)!.rules;
    if (rules.includes('max_edge') || rules.includes('max_pixels')) {
      if (w >= h) w -= multipleOf;
      else h -= multipleOf;
    } else if (rules.includes('min_pixels')) {
      if (w <= h) w += multipleOf;
      else h += multipleOf;
    } else if (rules.includes('aspect_ratio')) {
      if (w < h) w += multipleOf;
      else h += multipleOf;
    }
  }
  return sizeFailures(w, h) ? null : { width: w, height: h };
}
