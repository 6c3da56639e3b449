/**
 * The studio's image client: image requests on /v1 (this module's resource), with the gallery's
 * list and files, and the status, session and prices the shell reads, each from its own module.
 */
import { PARENT_IMAGE_HEADER, STUDIO_RUN_HEADER } from '../../../shared/admin';
import { imagesResponseSchema } from '../../../shared/imagesApi';
import { base64ToBlob } from '../base64';
import { subscribeAdminEvents, type SubscribeAdminEvents } from './adminEvents';
import { GatewayError } from './errors';
import { galleryApi } from './gallery';
import type { ImageCall, ImageCallHandlers, ImageCallResult } from './imageCall';
import { readImageStream } from './imageStream';
import { pricesApi } from './prices';
import { createRequest, queryString, readJson, type FetchLike, type Requester } from './request';
import { doubtSession } from './session';
import { statusApi } from './status';
import { studioSessionApi } from './studioSession';

/**
 * POST /v1/images/{generations,edits} as the studio, answered as JSON or as an event stream; and
 * following a run the gateway keeps, from any of its events.
 */
function v1ImagesApi(request: Requester) {
  return {
    async runImages(call: ImageCall, handlers: ImageCallHandlers): Promise<ImageCallResult> {
      const headers: Record<string, string> = { accept: 'application/json, text/event-stream' };
      if (call.parentImageId) headers[PARENT_IMAGE_HEADER] = call.parentImageId;
      if (call.runId) headers[STUDIO_RUN_HEADER] = call.runId;
      const path = `/v1/images/${call.endpoint}`;
      const response = await request.send(path, {
        method: 'POST',
        headers,
        body: call.body,
        signal: call.signal,
      });
      const requestId = response.headers.get('x-request-id');
      const type = response.headers.get('content-type') ?? '';
      if (type.includes('text/event-stream') && response.body) {
        return readImageStream(response.body, requestId, handlers);
      }
      const reply = await readJson(imagesResponseSchema, response, `POST ${path}`);
      reply.data.forEach((item, imageIndex) => {
        if (item.b64_json === undefined) return;
        handlers.onImage({
          imageIndex,
          blob: base64ToBlob(item.b64_json, reply.output_format),
          size: reply.size,
          quality: reply.quality,
          background: reply.background,
          outputFormat: reply.output_format,
          usage: null,
          revisedPrompt: item.revised_prompt,
        });
      });
      return { requestId, usage: reply.usage, images: reply.data.length };
    },

    /**
     * Follows a studio run the gateway keeps as a job (GET /api/admin/runs/:runId/events): its
     * image events after `after` (-1: all of them), to the run's end, read as `runImages` reads
     * its own stream.
     */
    async followRun(
      runId: string,
      after: number,
      requestId: string | null,
      handlers: ImageCallHandlers,
      signal?: AbortSignal,
    ): Promise<ImageCallResult> {
      const path = `/api/admin/runs/${encodeURIComponent(runId)}/events${queryString({
        starting_after: after >= 0 ? after : undefined,
      })}`;
      const response = await request.send(path, {
        headers: { accept: 'text/event-stream' },
        signal,
      });
      if (!response.body) throw new GatewayError(`GET ${path} sent no body`, 0, null, null, null);
      return readImageStream(response.body, requestId, handlers);
    },
  };
}

export function createImagesClient(
  fetchImpl: FetchLike = (input, init) => fetch(input, init),
  onUnauthorized: () => void = doubtSession,
  subscribe: SubscribeAdminEvents = subscribeAdminEvents,
) {
  const request = createRequest(fetchImpl, onUnauthorized);
  const gallery = galleryApi(request, subscribe);
  return {
    ...statusApi(request),
    session: studioSessionApi(request).probe,
    prices: pricesApi(request).priceTables,
    listImages: gallery.listImages,
    imageFile: gallery.imageFile,
    imageThumb: gallery.imageThumb,
    imageMask: gallery.imageMask,
    findImage: gallery.findImage,
    ...v1ImagesApi(request),
  };
}

/** The studio's image client, used by the stores. */
export const gateway = createImagesClient();
