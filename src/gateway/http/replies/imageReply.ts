import type { Response } from 'express';
import { piecesLength } from '../../bytes/base64Pieces';
import type { ImagePlan, ImageRunReply } from '../../imageService/types';
import type { UrlImages } from '../../gallery/urlImages';
import { setDeliveryHeaders } from './deliveryHeaders';
import { imageEvents } from './imageEvents';
import { startImagesJson, writeImagesJson } from './imagesJson';
import { writeImageUrls } from './imageUrls';
import { imagePassThrough, type PassThroughDeps } from './passThrough';
import { openSse } from './sse';

/**
 * Base64 in hand up to which a whole reply waits for the gallery's journal of its images: one
 * vectored write, 2.6 ms for 8 MB on the VMs measured (docs/streaming.md), for a reply that then
 * loses no image to a crash. A larger batch (a 4K image is 35 MB: 20-40 ms) is journaled just
 * after the reply, as a spooled image is, rather than on every such reply's path: the 4K bridge
 * reply waited 44 ms for it (docs/benchmarks.md).
 */
const JOURNAL_FIRST_MAX_BYTES = 8 * 1024 * 1024;

export interface ImageReplyDeps extends PassThroughDeps {
  /** Where `response_format: "url"` images are published (absent: such requests are refused). */
  urlImages?: UrlImages;
}

/**
 * Picks how a run becomes bytes: an event stream or one JSON body (base64 or URLs). One image
 * without the ladder (which may upscale) streams through as it arrives, as a JSON reply or as
 * its stream's completed event; what must be whole first (n images, a ladder step, lenient
 * headers, URLs) is written at the end.
 */
export function imageReply(res: Response, deps: ImageReplyDeps, plan: ImagePlan): ImageRunReply {
  const { options } = plan.request;
  const urlImages = options.responseFormat === 'url' ? deps.urlImages : undefined;
  const events = options.stream ? imageEvents(openSse(res), plan, deps.now) : null;
  const pass =
    options.n === 1 && !plan.ladder && !urlImages
      ? imagePassThrough(
          res,
          deps,
          events ? events.completedTarget() : startImagesJson(res, deps.now),
        )
      : null;
  return {
    onImageStart: pass ? (i, start) => pass.onImageStart(i, start) : undefined,
    onPartial: events ? (i, partial) => events.partial(i, partial) : undefined,
    onImage: events
      ? (i, image) => {
          // A streamed-through image's event is already under way; `succeeded` ends it.
          if (!pass?.started) events.completed(i, image);
        }
      : undefined,
    get committed() {
      return events !== null || pass?.started === true;
    },
    async succeeded(run, keep) {
      if (pass?.started) {
        await pass.finish(run.meta, run.images[0]!, keep);
        await pass.releaseSpool();
        events?.sse.end();
        return;
      }
      // The gallery's journal first: a reply that has ended never loses its images to a crash
      // (a large batch: just after the reply, see JOURNAL_FIRST_MAX_BYTES). Never rejects.
      const kept = keep(run.images);
      const inHand = run.images.reduce((sum, image) => sum + piecesLength(image.outcome.b64), 0);
      if (inHand <= JOURNAL_FIRST_MAX_BYTES) await kept;
      if (events) {
        events.sse.end();
        return;
      }
      setDeliveryHeaders(res, run.images, options.size.text);
      if (urlImages) {
        await writeImageUrls(res, urlImages, run.meta, run.images);
        return;
      }
      writeImagesJson(
        res,
        run.meta,
        run.images.map((image) => ({
          b64: image.outcome.b64,
          revisedPrompt: image.outcome.revisedPrompt,
        })),
      );
    },
    async failed(error) {
      if (pass?.started) {
        await pass.fail();
        return;
      }
      events?.sse.error(error);
      events?.sse.end();
    },
    broken() {
      if (pass?.started) res.destroy();
    },
  };
}
