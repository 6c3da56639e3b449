import { formatSize } from '../../../shared/sizeRules';
import type { DeliveredImage } from '../../dispatch/runImages';
import { concrete } from '../../imageService/run';
import type { ImagePlan } from '../../imageService/types';
import type { Base64Pieces } from '../../bytes/base64Pieces';
import type { PartialImage } from '../../upstream/types';
import type { SseWriter } from './sse';
import type { StreamedImageTarget } from './types';

/**
 * A run as an event stream (spec 2.1 streaming): partial images as they come, one
 * `*.completed` event per image.
 *
 * With n > 1 all n images are made in parallel and their events interleave on one stream. Every
 * event carries `image_index` (0-based, which image it belongs to) and each image ends with its
 * own `*.completed` event, so a client sees exactly n completed events.
 */
export function imageEvents(sse: SseWriter, plan: ImagePlan, now: () => number) {
  const prefix = plan.request.operation === 'generate' ? 'image_generation' : 'image_edit';
  const { requested } = plan;
  const tagged = (fields: Record<string, unknown>, imageIndex: number) =>
    plan.request.options.n > 1 ? { ...fields, image_index: imageIndex } : fields;
  // The fields after the image in a `*.completed` event, from what was really delivered.
  const completedFields = (image: DeliveredImage) => ({
    created_at: image.outcome.created,
    size: formatSize(image.delivered),
    quality: concrete(image.outcome.quality) ?? requested.quality,
    background: concrete(image.outcome.background) ?? requested.background,
    output_format: image.delivered.format,
    usage: image.usage,
  });
  return {
    sse,
    /** A `*.completed` event an image streams through into. */
    completedTarget: () => startImageEvent(sse, `${prefix}.completed`, completedFields),
    partial(imageIndex: number, partial: PartialImage): void {
      const type = `${prefix}.partial_image`;
      sse.event(
        type,
        imageEventPieces(
          type,
          [partial.b64],
          tagged(
            {
              partial_image_index: partial.index,
              created_at: Math.floor(now() / 1000),
              size: requested.size,
              quality: requested.quality,
              background: requested.background,
              output_format: requested.outputFormat,
            },
            imageIndex,
          ),
        ),
      );
    },
    completed(imageIndex: number, image: DeliveredImage): void {
      const type = `${prefix}.completed`;
      sse.event(
        type,
        imageEventPieces(type, image.outcome.b64, tagged(completedFields(image), imageIndex)),
      );
    },
  };
}

/**
 * The `*.completed` event of an image stream, started while the image is still arriving, the same
 * way: its JSON is `imageEventPieces`' with every field after the image, so they can wait until
 * the upstream is done.
 */
export function startImageEvent(
  sse: SseWriter,
  type: string,
  fields: (image: DeliveredImage) => Record<string, unknown>,
): StreamedImageTarget {
  return {
    open(_start, retain) {
      const event = sse.begin(type, `{"type":${JSON.stringify(type)},"b64_json":"`);
      return {
        sink: { write: (piece) => event.write(piece), retain },
        finish(_meta, image) {
          event.end(`",${JSON.stringify(fields(image)).slice(1)}`);
        },
      };
    },
  };
}

/** The JSON of an image stream event with the base64 spliced in; `fields` must not be empty. */
export function imageEventPieces(
  type: string,
  b64: Base64Pieces,
  fields: Record<string, unknown>,
): Array<string | Buffer> {
  const rest = JSON.stringify(fields).slice(1);
  return [`{"type":${JSON.stringify(type)},"b64_json":"`, ...b64, `",${rest}`];
}
