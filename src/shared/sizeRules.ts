/**
 * Size rules of spec 8.1, shared by the gateway (authoritative) and the studio (live feedback).
 * Each rule has a stable id so the studio and error messages can say which one failed.
 */
export const SIZE_LIMITS = {
  maxEdge: 3840,
  multipleOf: 16,
  maxAspect: 3,
  minPixels: 655_360,
  maxPixels: 8_294_400,
} as const;

export const COMMON_SIZES = [
  '1024x1024',
  '1536x1024',
  '1024x1536',
  '2048x2048',
  '2048x1152',
  '3840x2160',
  '2160x3840',
] as const;

export type SizeRule =
  | 'format'
  | 'canonical'
  | 'max_edge'
  | 'multiple_of_16'
  | 'aspect_ratio'
  | 'min_pixels'
  | 'max_pixels';

export interface Dimensions {
  width: number;
  height: number;
}

export type SizeCheck =
  | { ok: true; auto: true }
  | { ok: true; auto: false; width: number; height: number }
  | { ok: false; rule: SizeRule; message: string };

/** The one spelling of a size: plain digits without leading zeros, a lower-case x. */
const SIZE_PATTERN = /^(0|[1-9]\d{0,4})x(0|[1-9]\d{0,4})$/;
/** What people and tools also write for a size: signs, spaces, zeros in front, X or ×. */
const SIZE_LOOSE = /^\s*[+-]?\d+\s*[xX\u00d7]\s*[+-]?\d+\s*$/;

/**
 * Checks a `size` value; returns the first failing rule with a message a person can act on. Only
 * the canonical spelling passes: `01024x1024` and `+1024x1024` name the same size, but a value
 * that is accepted in several spellings is recorded, compared and cached in several too.
 */
export function checkSize(size: string): SizeCheck {
  if (size === 'auto') return { ok: true, auto: true };
  const match = SIZE_PATTERN.exec(size);
  if (!match && SIZE_LOOSE.test(size)) {
    return {
      ok: false,
      rule: 'canonical',
      message:
        `size '${size}' is not in canonical form: write <width>x<height> in plain digits, with no` +
        ` leading zeros, signs or spaces and a lower-case x (for example 1024x1024)`,
    };
  }
  if (!match) {
    return {
      ok: false,
      rule: 'format',
      message: `size must be 'auto' or '<width>x<height>' (for example 1024x1024); got '${size}'`,
    };
  }
  const width = Number(match[1]);
  const height = Number(match[2]);
  const failure = checkDimensions(width, height);
  return failure ?? { ok: true, auto: false, width, height };
}

/** The rule checks on numbers alone, in the order a person fixes them. */
export function checkDimensions(
  width: number,
  height: number,
): { ok: false; rule: SizeRule; message: string } | null {
  const { maxEdge, multipleOf, maxAspect, minPixels, maxPixels } = SIZE_LIMITS;
  const label = `${width}x${height}`;
  if (width > maxEdge || height > maxEdge) {
    return {
      ok: false,
      rule: 'max_edge',
      message: `size ${label}: each edge must be at most ${maxEdge} px`,
    };
  }
  if (width % multipleOf !== 0 || height % multipleOf !== 0) {
    return {
      ok: false,
      rule: 'multiple_of_16',
      message: `size ${label}: width and height must each be a multiple of ${multipleOf} px`,
    };
  }
  const long = Math.max(width, height);
  const short = Math.min(width, height);
  if (short === 0 || long > maxAspect * short) {
    return {
      ok: false,
      rule: 'aspect_ratio',
      message: `size ${label}: long edge to short edge must be at most ${maxAspect}:1`,
    };
  }
  const pixels = width * height;
  if (pixels < minPixels) {
    return {
      ok: false,
      rule: 'min_pixels',
      message: `size ${label}: total pixels ${pixels} is below the minimum ${minPixels}`,
    };
  }
  if (pixels > maxPixels) {
    return {
      ok: false,
      rule: 'max_pixels',
      message: `size ${label}: total pixels ${pixels} is above the maximum ${maxPixels}`,
    };
  }
  return null;
}

export function formatSize(d: Dimensions): string {
  return `${d.width}x${d.height}`;
}
