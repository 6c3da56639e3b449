import type { Response } from 'express';
import type { DeliveredImage, ImageStartInfo } from '../../dispatch/runImages';
import type { ImageSpool, SpooledImage } from '../../core/domain';
import type { GalleryPort } from '../../gallery/port';
import type { ImageSink } from '../../upstream/types';
import { scopeOf } from '../requestScope';
import type { ReplyMeta, StreamedImage, StreamedImageTarget } from './types';

export interface PassThroughDeps {
  now: () => number;
  /** The gallery: whether it keeps the images, and the spool its copy is decoded into. */
  gallery?: Pick<GalleryPort, 'keeps' | 'spool' | 'dropUnclaimed'>;
}

/**
 * One image (n = 1, no ladder) streamed through as it arrives: the reply starts once its header
 * has passed the delivery check, and the gallery's copy, if one is wanted, is written to disk on
 * the way, so the gateway holds none of the image for anybody.
 */
export interface ImagePassThrough {
  onImageStart(imageIndex: number, start: ImageStartInfo): ImageSink;
  /** True once the reply has begun: from then on a failure can only break the connection. */
  readonly started: boolean;
  /**
   * Ends the reply and hands the image to the gallery (`keep`) if it wants it. An image held in
   * memory is journaled before the reply ends; a spooled one once its file is complete.
   */
  finish(
    meta: ReplyMeta,
    image: DeliveredImage,
    keep: (images: DeliveredImage[]) => Promise<void>,
  ): Promise<void>;
  /** Called after the gallery has had its say: a spool it did not take is deleted. */
  releaseSpool(): Promise<void>;
  /** The upstream failed mid-image (the usage notes already say why): break the connection. */
  fail(): Promise<void>;
}

export function imagePassThrough(
  res: Response,
  deps: PassThroughDeps,
  target: StreamedImageTarget,
): ImagePassThrough {
  let reply: StreamedImage | null = null;
  let spool: ImageSpool | null = null;
  let spooled: SpooledImage | null = null;
  let keep = true;

  return {
    onImageStart(_imageIndex, start) {
      // A caller already gone never gets this image: the gallery keeps it (it was paid for).
      keep = res.destroyed || (deps.gallery?.keeps(scopeOf(res)) ?? true);
      const pixels = start.delivered.width * start.delivered.height;
      spool = keep && deps.gallery ? deps.gallery.spool(pixels) : null;
      // Pieces are retained only when the gallery wants them and no spool takes them: an image
      // nobody holds lets each piece go once written, out of the heap's old generation.
      reply = target.open(start, keep && !spool);
      const { sink } = reply;
      const tee = spool;
      if (!tee) return sink;
      return {
        retain: false,
        write(piece) {
          const spooling = tee.write(piece);
          const sending = sink.write(piece);
          if (!spooling) return sending;
          return sending ? Promise.all([spooling, sending]).then(() => undefined) : spooling;
        },
      };
    },
    get started() {
      return reply !== null;
    },
    async finish(meta, image, keepImages) {
      if (keep && !spool) {
        // A small image, its pieces in hand: its journal is one write, and the reply ends once
        // it is on disk; the image is written after the reply (gallery/store.ts).
        await keepImages([image]);
        reply!.finish(meta, image);
        return;
      }
      reply!.finish(meta, image);
      if (!keep || !spool) return;
      spooled = await spool.finish();
      if (spooled) await keepImages([{ ...image, spooled }]);
    },
    async releaseSpool() {
      if (spooled) await deps.gallery?.dropUnclaimed(spooled);
    },
    async fail() {
      // Half an image has gone out with a 200: the only honest signal left is a broken
      // connection (no client takes a truncated JSON body or event for an image); the record
      // says what happened.
      res.destroy();
      await spool?.discard();
    },
  };
}
