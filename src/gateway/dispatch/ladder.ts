import sharp from 'sharp';
import { checkSize } from '../../shared/sizeRules';
import type { Quality } from '../../shared/imageParams';
import { decodePieces, type Base64Pieces } from '../upstream/base64Pieces';

/** Above 2560x1440, outputs are experimental high-pixel work (spec 8.1): the ladder applies. */
const LADDER_MIN_PIXELS = 2560 * 1440;

export interface LadderStep {
  /** 1: as asked; 2: medium quality at the asked size; 3: a 1.5 MP image at medium, upscaled here. */
  step: 1 | 2 | 3;
  size: string;
  quality: Quality | undefined;
  upscaleTo: { width: number; height: number } | null;
}

/**
 * The fallback sequence of spec 7.3 for a large request: 3840x2160 high, then 3840x2160 medium,
 * then 1536x1024 medium upscaled locally. Portrait and square requests use the matching
 * 1.5 MP base (1024x1536, 1024x1024). Steps that would repeat an earlier one are skipped.
 */
export function ladderFor(size: string, quality: Quality | undefined): LadderStep[] {
  const check = checkSize(size);
  if (!check.ok || check.auto || check.width * check.height <= LADDER_MIN_PIXELS) {
    return [{ step: 1, size, quality, upscaleTo: null }];
  }
  const steps: LadderStep[] = [{ step: 1, size, quality, upscaleTo: null }];
  if (quality === 'high' || quality === 'auto' || quality === undefined)
    steps.push({ step: 2, size, quality: 'medium', upscaleTo: null });
  const base =
    check.width > check.height
      ? '1536x1024'
      : check.width < check.height
        ? '1024x1536'
        : '1024x1024';
  steps.push({
    step: 3,
    size: base,
    quality: 'medium',
    upscaleTo: { width: check.width, height: check.height },
  });
  return steps;
}

/**
 * Upscales with Lanczos to exactly the asked size and re-encodes in the asked format. This is the
 * one place the gateway decodes an image: the upscale cannot be done on base64.
 */
export async function upscale(
  b64: Base64Pieces,
  to: { width: number; height: number },
  format: 'png' | 'jpeg' | 'webp',
  compression: number | undefined,
): Promise<Base64Pieces> {
  const image = sharp(decodePieces(b64)).resize(to.width, to.height, {
    kernel: sharp.kernel.lanczos3,
    fit: 'fill',
  });
  const quality = compression ?? 90;
  const encoded =
    format === 'png'
      ? await image.png().toBuffer()
      : format === 'jpeg'
        ? await image.jpeg({ quality }).toBuffer()
        : await image.webp({ quality }).toBuffer();
  return [Buffer.from(encoded.toString('base64'), 'latin1')];
}
