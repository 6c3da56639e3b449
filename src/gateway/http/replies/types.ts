import type { DeliveredImage, ImageStartInfo } from '../../dispatch/runImages';
import type { ImageRunMeta } from '../../imageService/types';
import type { Base64Pieces } from '../../bytes/base64Pieces';
import type { ImageSink } from '../../upstream/types';

/*
 * The types the reply writers share, in one place: the JSON body, the event stream and the
 * pass-through all speak them, and none imports another for them.
 */

/** The fields after the image, known once the upstream is done. */
export type ReplyMeta = Omit<ImageRunMeta, 'created'>;

export interface ReplyImage {
  b64: Base64Pieces;
  revisedPrompt: string | null;
}

/**
 * Where a streamed-through image goes: a JSON reply (`startImagesJson`) or one `*.completed`
 * event of an event stream (`startImageEvent`). `open` starts it once the image's header is
 * known; `finish` writes what follows the image.
 */
export interface StreamedImageTarget {
  open(start: ImageStartInfo, retain: boolean): StreamedImage;
}

export interface StreamedImage {
  sink: ImageSink;
  finish(meta: ReplyMeta, image: DeliveredImage): void;
}
