import type { ImageSource } from '../../shared/admin';
import type { TokenUsage } from '../../shared/imageParams';
import type { Base64Pieces } from '../bytes/base64Pieces';
import type { SpooledImage } from '../core/domain';

/*
 * A request's delivered images as the gallery receives them: what the store keeps and the
 * journal writes (one module both import, so neither imports the other).
 */

/** One delivered image, as the reply carried it. */
export interface KeptImage {
  /** Base64 ASCII bytes, exactly as sent to the caller, in the pieces they arrived in. */
  b64: Base64Pieces;
  /** The image's text already on disk, written as it streamed through: decoded from there. */
  spooled?: SpooledImage;
  width: number;
  height: number;
  format: string;
  revisedPrompt: string | null;
  fallbackStep: number | null;
  usage: TokenUsage;
}

/** What a request made, and how it asked for it: everything the gallery shows and re-uses. */
export interface ImageBatch {
  requestId: string;
  source: ImageSource;
  endpoint: string;
  prompt: string;
  model: string;
  requestedSize: string;
  quality: string | null;
  outputCompression: number | null;
  background: string | null;
  moderation: string | null;
  apiKeyId: string | null;
  parentId: string | null;
  /** The mask of an edit, kept beside each image it made. */
  mask: { bytes: Buffer; format: string } | null;
  images: KeptImage[];
}
