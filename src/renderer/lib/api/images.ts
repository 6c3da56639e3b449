/**
 * The studio's image client: image requests on /v1, the gallery's list and files, and the
 * status, session and prices the shell reads.
 */
import {
  dollarsToMicros,
  DEFAULT_IMAGE_PRICES,
  type PriceTable,
} from '../../../shared/costEstimate';
import {
  imagesPageSchema,
  PARENT_IMAGE_HEADER,
  pricesResponseSchema,
  STUDIO_RUN_HEADER,
  type ImageRecord,
  type ImagesPage,
  type PricesResponse,
} from '../../../shared/admin';
import { imagesResponseSchema } from '../../../shared/imagesApi';
import { statusResponseSchema, type StatusResponse } from '../../../shared/status';
import { base64ToBlob } from '../base64';
import { adminUrls } from './admin';
import { subscribeAdminEvents, type SubscribeAdminEvents } from './adminEvents';
import { GatewayError } from './errors';
import { readImageStream } from './imageStream';
import { createRequest, queryString, readJson, type FetchLike } from './request';
import { doubtSession } from './session';

/** What the studio asks GET /api/admin/images for (a gallery search: docs/admin-api.md). */
export interface ImageQuery {
  q?: string;
  favourite?: boolean;
  source?: 'studio' | 'api';
  /** Only the images on this board (its id). */
  board?: string;
  model?: string;
  /** WxH of the file or the requested size, or `auto`. */
  size?: string;
  /** API key id. */
  key?: string;
  /** ms since the epoch; until is exclusive. */
  since?: number;
  until?: number;
  limit?: number;
  before?: number;
  /** How many of the page's first thumbnails to bring inline (a first screen). */
  thumbs?: number;
}

export type GatewayStatus = StatusResponse;

/** Prices of GET /api/admin/prices (dollars per 1M tokens as decimal strings) in micro-dollars. */
export function parsePrices(body: PricesResponse): Record<string, PriceTable> {
  const out: Record<string, PriceTable> = {};
  for (const row of body.prices) {
    const read = (field: keyof PriceTable) =>
      dollarsToMicros(row[field]) ?? DEFAULT_IMAGE_PRICES[field];
    out[row.model] = {
      textInput: read('textInput'),
      imageInput: read('imageInput'),
      textOutput: read('textOutput'),
      imageOutput: read('imageOutput'),
    };
  }
  return out;
}

export type {
  DeliveredImage,
  ImageCall,
  ImageCallHandlers,
  ImageCallResult,
  PartialImage,
} from './imageCall';
import type { ImageCall, ImageCallHandlers, ImageCallResult } from './imageCall';

export function createImagesClient(
  fetchImpl: FetchLike = (input, init) => fetch(input, init),
  onUnauthorized: () => void = doubtSession,
  subscribe: SubscribeAdminEvents = subscribeAdminEvents,
) {
  const request = createRequest(fetchImpl, onUnauthorized);

  async function getBlob(path: string, signal?: AbortSignal): Promise<Blob> {
    const response = await request.send(path, { headers: { accept: 'image/*' }, signal });
    return response.blob();
  }

  function listImages(query: ImageQuery = {}, signal?: AbortSignal): Promise<ImagesPage> {
    const qs = queryString({
      q: query.q,
      favourite: query.favourite ? '1' : undefined,
      source: query.source,
      board: query.board,
      model: query.model,
      size: query.size,
      key: query.key,
      since: query.since,
      until: query.until,
      limit: query.limit || undefined,
      before: query.before,
      thumbs: query.thumbs,
    });
    return request.json(imagesPageSchema, `/api/admin/images${qs}`, { signal });
  }

  return {
    status: (): Promise<GatewayStatus> => request.json(statusResponseSchema, '/api/status'),

    /** 'login' when there is no studio session (401): the user must open a login link. */
    async session(): Promise<'ok' | 'login'> {
      try {
        await request.send('/api/admin/session', { probe: true });
        return 'ok';
      } catch (error) {
        if (error instanceof GatewayError && error.status === 401) return 'login';
        throw error;
      }
    },

    prices: async (): Promise<Record<string, PriceTable>> =>
      parsePrices(await request.json(pricesResponseSchema, '/api/admin/prices')),

    listImages,

    imageFile: (id: string, signal?: AbortSignal) => getBlob(adminUrls.file(id), signal),
    imageThumb: (id: string, signal?: AbortSignal) => getBlob(adminUrls.thumb(id), signal),
    /** The mask file of an image made by a masked edit (for an export with its mask). */
    imageMask: (id: string, signal?: AbortSignal) => getBlob(adminUrls.mask(id), signal),

    /**
     * The gallery record of image `index` of request `requestId`. The gateway stores images after
     * the reply is sent, so it may not be there yet: it is looked up once the events stream is
     * live (it may have come before), awaited as an `image` event, and looked up a last time
     * after `timeoutMs` (a stream that dropped may have missed it). Null if it never came: the
     * chain is a nicety, an edit works without it.
     */
    findImage(requestId: string, index: number, timeoutMs = 30_000): Promise<ImageRecord | null> {
      const matches = (image: ImageRecord) =>
        image.requestId === requestId && image.index === index;
      const lookUp = () =>
        listImages({ source: 'studio', limit: 50 }).then(
          (page) => page.images.find(matches) ?? null,
          () => null, // Gallery unavailable: the next look (or the event) may find it.
        );
      return new Promise((resolve) => {
        let settled = false;
        const finish = (record: ImageRecord | null) => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          stop();
          resolve(record);
        };
        const timer = setTimeout(() => void lookUp().then(finish), timeoutMs);
        const stop = subscribe({
          onImage: (image) => {
            if (matches(image)) finish(image);
          },
          onConnection: (live) => {
            if (live) void lookUp().then((found) => found && finish(found));
          },
        });
      });
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
  };
}

export type ImagesClient = ReturnType<typeof createImagesClient>;

/** The studio's image client, used by the stores. */
export const gateway = createImagesClient();
