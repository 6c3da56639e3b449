import type { Response } from 'express';
import type { DeliveredImage } from '../../dispatch/runImages';
import type { ImageRunMeta } from '../../imageService/types';
import type { UrlImages } from '../../gallery/urlImages';

/**
 * The spec 2.1 body with `url` where `b64_json` would be: each image is published at a signed URL
 * on the address the client called (the Host header, which the host guard already checked).
 */
export async function writeImageUrls(
  res: Response,
  urlImages: UrlImages,
  meta: ImageRunMeta,
  images: DeliveredImage[],
): Promise<void> {
  const origin = `http://${res.req.headers.host}`;
  const published = await Promise.all(
    images.map((image) => urlImages.publish(image.outcome.b64, image.delivered.format)),
  );
  res.json({
    created: meta.created,
    data: published.map((p, i) => {
      const revised = images[i]!.outcome.revisedPrompt;
      return revised === null
        ? { url: origin + p.path }
        : { url: origin + p.path, revised_prompt: revised };
    }),
    background: meta.background,
    model: meta.model,
    output_format: meta.outputFormat,
    quality: meta.quality,
    size: meta.size,
    usage: meta.usage,
  });
}
