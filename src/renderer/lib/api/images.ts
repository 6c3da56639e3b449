/**
 * The studio's image client: image requests on /v1, the gallery's list and files, and the
 * status, session and prices the shell reads.
 */
import '../zodConfig';
import {
  dollarsToMicros,
  DEFAULT_IMAGE_PRICES,
  type PriceTable,
} from '../../../shared/costEstimate';
import { addUsage, emptyUsage, type TokenUsage } from '../../../shared/imageParams';
import {
  imagesPageSchema,
  PARENT_IMAGE_HEADER,
  pricesResponseSchema,
  STUDIO_HEADER,
  STUDIO_RUN_HEADER,
  type ImageRecord,
  type ImagesPage,
} from '../../../shared/admin';
import { base64ToBlob } from '../base64';
import { SseParser, type SseEvent } from '../sse';
import { GatewayError, toGatewayError } from './errors';
import type { FetchLike } from './request';
import { doubtSession } from './session';

/** What the studio asks GET /api/admin/images for. */
export interface ImageQuery {
  q?: string;
  favourite?: boolean;
  source?: 'studio' | 'api';
  limit?: number;
  before?: number;
}

export interface GatewayStatus {
  name: string;
  version: string;
  upstream: { kind: 'simulator' | 'accounts'; label: string };
  /** The gateway's base URL, e.g. http://127.0.0.1:8787 */
  address: string;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const str = (value: unknown): string | null => (typeof value === 'string' ? value : null);
const num = (value: unknown): number =>
  typeof value === 'number' && Number.isFinite(value) ? value : 0;

export function isGatewayStatus(value: unknown): value is GatewayStatus {
  if (!isRecord(value) || !isRecord(value.upstream)) return false;
  const { name, version, address, upstream } = value;
  return (
    typeof name === 'string' &&
    typeof version === 'string' &&
    typeof address === 'string' &&
    (upstream.kind === 'simulator' || upstream.kind === 'accounts') &&
    typeof upstream.label === 'string'
  );
}

/** Usage as sent, with absent parts as zero (an upstream may omit the details). */
export function normaliseUsage(value: unknown): TokenUsage | null {
  if (!isRecord(value)) return null;
  const usage = emptyUsage();
  const inDetails = isRecord(value.input_tokens_details) ? value.input_tokens_details : {};
  const outDetails = isRecord(value.output_tokens_details) ? value.output_tokens_details : {};
  usage.input_tokens = num(value.input_tokens);
  usage.output_tokens = num(value.output_tokens);
  usage.total_tokens = num(value.total_tokens) || usage.input_tokens + usage.output_tokens;
  usage.input_tokens_details = {
    text_tokens: num(inDetails.text_tokens),
    image_tokens: num(inDetails.image_tokens),
  };
  usage.output_tokens_details = {
    text_tokens: num(outDetails.text_tokens),
    // Image outputs bill as image tokens when the split is missing.
    image_tokens:
      'image_tokens' in outDetails ? num(outDetails.image_tokens) : num(value.output_tokens),
  };
  return usage;
}

/** Parses `GET /api/admin/prices` (dollars per 1M tokens as decimal strings) into micro-dollars. */
export function parsePrices(body: unknown): Record<string, PriceTable> {
  const parsed = pricesResponseSchema.safeParse(body);
  if (!parsed.success)
    throw new GatewayError('GET /api/admin/prices answered an unexpected body', 200);
  const out: Record<string, PriceTable> = {};
  for (const row of parsed.data.prices) {
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

/** One image request to /v1/images/generations or /v1/images/edits. */
export interface ImageCall {
  endpoint: 'generations' | 'edits';
  /** JSON fields for generations, multipart form for edits. */
  body: Record<string, unknown> | FormData;
  /** Sent as `x-atelier-parent-image` to record the edit chain. */
  parentImageId?: string | null;
  /** Sent as `x-atelier-run`: the id that `admin.cancelRun` stops the upstream work by. */
  runId?: string;
  signal?: AbortSignal;
}

export interface PartialImage {
  imageIndex: number;
  partialIndex: number;
  blob: Blob;
}

export interface DeliveredImage {
  imageIndex: number;
  blob: Blob;
  /** The size as delivered (the gateway reports what it really got). */
  size: string | null;
  quality: string | null;
  background: string | null;
  outputFormat: string | null;
  /** This image's usage; null in a non-streamed reply, whose usage covers the whole request. */
  usage: TokenUsage | null;
  revisedPrompt: string | null;
}

export interface ImageCallHandlers {
  onPartial?: (partial: PartialImage) => void;
  onImage: (image: DeliveredImage) => void;
}

export interface ImageCallResult {
  requestId: string | null;
  /** The whole request's usage: the reply's, or the sum of the streamed images'. */
  usage: TokenUsage | null;
  images: number;
}

export function createGatewayClient(
  fetchImpl: FetchLike = (input, init) => fetch(input, init),
  onUnauthorized: () => void = doubtSession,
) {
  /** `probe`: the session check itself, whose 401 is an answer rather than a doubt. */
  async function send(path: string, init: RequestInit = {}, probe = false): Promise<Response> {
    const headers = new Headers(init.headers);
    headers.set(STUDIO_HEADER, '1');
    if (!headers.has('accept')) headers.set('accept', 'application/json');
    let response: Response;
    try {
      response = await fetchImpl(path, { ...init, headers, credentials: 'same-origin' });
    } catch (error) {
      if (init.signal?.aborted) throw error;
      throw new GatewayError('The gateway did not answer. Is Atelier still running?', 0);
    }
    if (!response.ok) {
      if (response.status === 401 && !probe) onUnauthorized();
      const requestId = response.headers.get('x-request-id');
      const body: unknown = await response.json().catch(() => undefined);
      throw toGatewayError(
        response.status,
        body,
        `${init.method ?? 'GET'} ${path} answered ${response.status}`,
        requestId,
      );
    }
    return response;
  }

  async function getJson(path: string, probe = false): Promise<unknown> {
    const response = await send(path, {}, probe);
    return response.json().catch(() => {
      throw new GatewayError(`GET ${path} answered a body that is not JSON`, response.status);
    });
  }

  async function getBlob(path: string, signal?: AbortSignal): Promise<Blob> {
    const response = await send(path, { headers: { accept: 'image/*' }, signal: signal ?? null });
    return response.blob();
  }

  async function listImages(query: ImageQuery = {}, signal?: AbortSignal): Promise<ImagesPage> {
    const params = new URLSearchParams();
    if (query.q) params.set('q', query.q);
    if (query.favourite) params.set('favourite', '1');
    if (query.source) params.set('source', query.source);
    if (query.limit) params.set('limit', String(query.limit));
    if (query.before !== undefined) params.set('before', String(query.before));
    const qs = params.toString();
    const response = await send(`/api/admin/images${qs ? `?${qs}` : ''}`, {
      signal: signal ?? null,
    });
    const parsed = imagesPageSchema.safeParse(await response.json().catch(() => undefined));
    if (!parsed.success) {
      throw new GatewayError('GET /api/admin/images answered an unexpected body', response.status);
    }
    return parsed.data;
  }

  return {
    async status(): Promise<GatewayStatus> {
      const body = await getJson('/api/status');
      if (!isGatewayStatus(body))
        throw new GatewayError('GET /api/status answered an unexpected body', 200);
      return body;
    },

    /** 'login' when there is no studio session (401): the user must open a login link. */
    async session(): Promise<'ok' | 'login'> {
      try {
        await getJson('/api/admin/session', true);
        return 'ok';
      } catch (error) {
        if (error instanceof GatewayError && error.status === 401) return 'login';
        throw error;
      }
    },

    async prices(): Promise<Record<string, PriceTable>> {
      return parsePrices(await getJson('/api/admin/prices'));
    },

    listImages,

    imageFile: (id: string, signal?: AbortSignal) =>
      getBlob(`/api/admin/images/${encodeURIComponent(id)}/file`, signal),
    imageThumb: (id: string, signal?: AbortSignal) =>
      getBlob(`/api/admin/images/${encodeURIComponent(id)}/thumb`, signal),

    /**
     * The gallery id of image `index` of request `requestId`. The gateway stores images after
     * the reply is sent, so a lookup right after a request may need a few tries.
     */
    async findImage(requestId: string, index: number, tries = 4): Promise<ImageRecord | null> {
      for (let attempt = 0; attempt < tries; attempt++) {
        if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 400 * 2 ** attempt));
        try {
          const page = await listImages({ source: 'studio', limit: 50 });
          const found = page.images.find((i) => i.requestId === requestId && i.index === index);
          if (found) return found;
        } catch {
          // Gallery unavailable: the chain is a nicety, the edit works without it.
        }
      }
      return null;
    },

    async runImages(call: ImageCall, handlers: ImageCallHandlers): Promise<ImageCallResult> {
      const isForm = call.body instanceof FormData;
      const headers: Record<string, string> = { accept: 'application/json, text/event-stream' };
      // Multipart: the browser writes the Content-Type with its boundary (spec 5.2).
      if (!isForm) headers['content-type'] = 'application/json';
      if (call.parentImageId) headers[PARENT_IMAGE_HEADER] = call.parentImageId;
      if (call.runId) headers[STUDIO_RUN_HEADER] = call.runId;
      const response = await send(`/v1/images/${call.endpoint}`, {
        method: 'POST',
        headers,
        body: isForm ? (call.body as FormData) : JSON.stringify(call.body),
        signal: call.signal ?? null,
      });
      const requestId = response.headers.get('x-request-id');
      const type = response.headers.get('content-type') ?? '';
      if (type.includes('text/event-stream') && response.body) {
        return readImageStream(response.body, requestId, handlers);
      }
      const body: unknown = await response.json();
      const data = isRecord(body) && Array.isArray(body.data) ? body.data : [];
      const meta = isRecord(body) ? body : {};
      data.forEach((item: unknown, imageIndex) => {
        if (!isRecord(item) || typeof item.b64_json !== 'string') return;
        handlers.onImage({
          imageIndex,
          blob: base64ToBlob(item.b64_json, str(meta.output_format)),
          size: str(meta.size),
          quality: str(meta.quality),
          background: str(meta.background),
          outputFormat: str(meta.output_format),
          usage: null,
          revisedPrompt: str(item.revised_prompt),
        });
      });
      return { requestId, usage: normaliseUsage(meta.usage), images: data.length };
    },
  };
}

export type GatewayClient = ReturnType<typeof createGatewayClient>;

/**
 * Reads an image event stream (generations or edits) to its end. Partial and final images are
 * handed over as soon as each event is complete; an `error` event rejects with its error.
 */
export async function readImageStream(
  body: ReadableStream<Uint8Array>,
  requestId: string | null,
  handlers: ImageCallHandlers,
): Promise<ImageCallResult> {
  const parser = new SseParser();
  const reader = body.getReader();
  let usage: TokenUsage | null = null;
  let images = 0;

  const handle = (event: SseEvent): void => {
    if (event.data === '[DONE]') return;
    let payload: unknown;
    try {
      payload = JSON.parse(event.data);
    } catch {
      throw new GatewayError(`The image stream sent an unreadable '${event.event}' event`, 0);
    }
    if (!isRecord(payload)) return;
    const type = str(payload.type) ?? event.event;
    if (type === 'error' || payload.error) {
      throw toGatewayError(0, payload, 'The image stream reported an error', requestId);
    }
    const imageIndex = num(payload.image_index);
    const b64 = str(payload.b64_json);
    if (!b64) return;
    const format = str(payload.output_format);
    if (type.endsWith('.partial_image')) {
      handlers.onPartial?.({
        imageIndex,
        partialIndex: num(payload.partial_image_index),
        blob: base64ToBlob(b64, format),
      });
    } else if (type.endsWith('.completed')) {
      const imageUsage = normaliseUsage(payload.usage);
      if (imageUsage) usage = usage ? addUsage(usage, imageUsage) : imageUsage;
      images += 1;
      handlers.onImage({
        imageIndex,
        blob: base64ToBlob(b64, format),
        size: str(payload.size),
        quality: str(payload.quality),
        background: str(payload.background),
        outputFormat: format,
        usage: imageUsage,
        revisedPrompt: str(payload.revised_prompt),
      });
    }
  };

  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      for (const event of parser.push(value)) handle(event);
    }
    for (const event of parser.end()) handle(event);
  } finally {
    reader.releaseLock();
  }
  return { requestId, usage, images };
}

/** The studio's client, used by the stores. */
export const gateway = createGatewayClient();
