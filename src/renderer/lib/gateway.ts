/**
 * The only module that calls the gateway. Same origin (the gateway serves the studio), no API
 * key: the HttpOnly session cookie authenticates both /api/admin and /v1 (as the built-in Studio
 * key), and `x-atelier-studio: 1` is the header a page on another origin cannot send
 * (docs/admin-api.md).
 */
import './zodConfig';
import { dollarsToMicros, DEFAULT_IMAGE_PRICES, type PriceTable } from '../../shared/costEstimate';
import { addUsage, emptyUsage, type TokenUsage } from '../../shared/imageParams';
import { base64ToBlob } from './base64';
import {
  accountLoginStartSchema,
  accountLoginStateSchema,
  accountResponseSchema,
  accountsResponseSchema,
  cancelRunResponseSchema,
  createKeyResponseSchema,
  imageDetailSchema,
  imageRecordSchema,
  imageResponseSchema,
  imagesPageSchema,
  keyResponseSchema,
  keysResponseSchema,
  okSchema,
  PARENT_IMAGE_HEADER,
  pricesResponseSchema,
  settingsResponseSchema,
  STUDIO_HEADER,
  STUDIO_RUN_HEADER,
  usageListResponseSchema,
  usageRecordSchema,
  usageTotalsResponseSchema,
  type AccountLoginBody,
  type CreateAccountBody,
  type CreateKeyBody,
  type ImageRecord,
  type ImagesPage,
  type PatchAccountBody,
  type PatchKeyBody,
  type PutPriceBody,
  type SettingsPatch,
  type UsageGroupBy,
  type UsageRecord,
} from '../../shared/admin';
import type { z } from 'zod';
import { SseParser, type SseEvent } from './sse';

/** What the studio asks GET /api/admin/images for. */
export interface ImageQuery {
  q?: string;
  favourite?: boolean;
  source?: 'studio' | 'api';
  limit?: number;
  before?: number;
}

/** An error answer of the gateway, in the one body shape `{error: {message, type, param, code}}`. */
export class GatewayError extends Error {
  override name = 'GatewayError';
  constructor(
    message: string,
    /** HTTP status; 0 when the gateway did not answer, or the error came inside a stream. */
    readonly status: number,
    readonly param: string | null = null,
    readonly code: string | null = null,
    readonly type: string | null = null,
    readonly requestId: string | null = null,
  ) {
    super(message);
  }

  /** A plain copy for stores and rendering. */
  toInfo(): GatewayErrorInfo {
    return {
      status: this.status,
      message: this.message,
      param: this.param,
      code: this.code,
      type: this.type,
      requestId: this.requestId,
    };
  }
}

export interface GatewayErrorInfo {
  status: number;
  message: string;
  param: string | null;
  code: string | null;
  type: string | null;
  requestId: string | null;
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

/** Turns an error body (or anything else a failing gateway sent) into a GatewayError. */
export function toGatewayError(
  status: number,
  body: unknown,
  fallback: string,
  requestId: string | null = null,
): GatewayError {
  const error = isRecord(body) && isRecord(body.error) ? body.error : null;
  const message = (error && str(error.message)) || fallback;
  return new GatewayError(
    message,
    status,
    error ? str(error.param) : null,
    error ? str(error.code) : null,
    error ? str(error.type) : null,
    requestId,
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

export type FetchLike = (input: string, init?: RequestInit) => Promise<Response>;

// --- the studio session can end under a running studio (30 days idle, or a restarted gateway:
// sessions live in its memory). Any 401 makes the session store probe; docs/admin-api.md.
const sessionWatchers = new Set<() => void>();

/** Calls `listener` whenever an answer suggests the studio session has ended. */
export function watchSession(listener: () => void): () => void {
  sessionWatchers.add(listener);
  return () => sessionWatchers.delete(listener);
}

/** Tells the watchers (a 401, or the event stream dropping); they confirm with a probe. */
export function doubtSession(): void {
  for (const listener of sessionWatchers) listener();
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

    // --- Gallery search and export (issue 14) ---------------------------------------------------
    /** One page of the gallery for a search: prompt words, model, size, API key, time range. */
    async searchImages(
      query: ImageQuery & {
        model?: string;
        size?: string;
        /** API key id. */
        key?: string;
        /** ms since the epoch; until is exclusive. */
        since?: number;
        until?: number;
      },
      signal?: AbortSignal,
    ): Promise<ImagesPage> {
      const response = await send(
        `/api/admin/images${queryString({ ...query, favourite: query.favourite ? '1' : undefined })}`,
        { signal: signal ?? null },
      );
      const parsed = imagesPageSchema.safeParse(await response.json().catch(() => undefined));
      if (!parsed.success) {
        throw new GatewayError(
          'GET /api/admin/images answered an unexpected body',
          response.status,
        );
      }
      return parsed.data;
    },
    /** The mask file of an image made by a masked edit (for an export with its mask). */
    imageMask: (id: string, signal?: AbortSignal) =>
      getBlob(`/api/admin/images/${encodeURIComponent(id)}/mask`, signal),
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

// --- the admin API of the Gallery, Usage, Keys, Accounts, Server and Settings pages ----------
// (docs/admin-api.md). Every answer is checked against its schema in src/shared/admin.ts.

/** The filters of GET /api/admin/usage and /usage.csv. */
export interface UsageFilters {
  since?: number;
  until?: number;
  apiKeyId?: string;
  model?: string;
  endpoint?: string;
  status?: 'success' | 'error' | number;
}

/** A query string from defined, non-empty values (`?a=1&b=x`, or '' when there are none). */
export function queryString(values: Record<string, string | number | boolean | undefined>): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(values)) {
    if (value === undefined || value === '') continue;
    params.set(name, String(value));
  }
  const qs = params.toString();
  return qs ? `?${qs}` : '';
}

const imagePath = (id: string) => `/api/admin/images/${encodeURIComponent(id)}`;

/**
 * What a browser loads without fetch: `<img>`, download links and EventSource cannot send the
 * studio header, and the gateway admits them on the cookie plus `Sec-Fetch-Site: same-origin`.
 */
export const adminUrls = {
  thumb: (id: string) => `${imagePath(id)}/thumb`,
  file: (id: string) => `${imagePath(id)}/file`,
  mask: (id: string) => `${imagePath(id)}/mask`,
  usageCsv: (filters: UsageFilters = {}) => `/api/admin/usage.csv${queryString({ ...filters })}`,
  events: '/api/admin/events',
} as const;

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export function createAdminClient(
  fetchImpl: FetchLike = (input, init) => fetch(input, init),
  onUnauthorized: () => void = doubtSession,
) {
  async function call<S extends z.ZodType>(
    schema: S,
    method: Method,
    path: string,
    body?: unknown,
    signal?: AbortSignal,
  ): Promise<z.output<S>> {
    const headers: Record<string, string> = { [STUDIO_HEADER]: '1', accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    let response: Response;
    try {
      response = await fetchImpl(path, {
        method,
        headers,
        body: body === undefined ? null : JSON.stringify(body),
        credentials: 'same-origin',
        signal: signal ?? null,
      });
    } catch (error) {
      if (signal?.aborted) throw error;
      throw new GatewayError('The gateway did not answer. Is Atelier still running?', 0);
    }
    const payload: unknown = await response.json().catch(() => undefined);
    if (!response.ok) {
      if (response.status === 401) onUnauthorized();
      throw toGatewayError(
        response.status,
        payload,
        `${method} ${path} answered ${response.status}`,
        response.headers.get('x-request-id'),
      );
    }
    const parsed = schema.safeParse(payload);
    if (!parsed.success) {
      throw new GatewayError(`${method} ${path} answered an unexpected body`, response.status);
    }
    return parsed.data;
  }
  const keyPath = (id: string) => `/api/admin/keys/${encodeURIComponent(id)}`;
  const accountPath = (id: string) => `/api/admin/accounts/${encodeURIComponent(id)}`;

  return {
    keys: async (signal?: AbortSignal) =>
      (await call(keysResponseSchema, 'GET', '/api/admin/keys', undefined, signal)).keys,
    createKey: (body: CreateKeyBody) =>
      call(createKeyResponseSchema, 'POST', '/api/admin/keys', body),
    updateKey: async (id: string, patch: PatchKeyBody) =>
      (await call(keyResponseSchema, 'PATCH', keyPath(id), patch)).record,
    deleteKey: (id: string) => call(okSchema, 'DELETE', keyPath(id)),

    accounts: (signal?: AbortSignal) =>
      call(accountsResponseSchema, 'GET', '/api/admin/accounts', undefined, signal),
    addAccount: async (body: CreateAccountBody) =>
      (await call(accountResponseSchema, 'POST', '/api/admin/accounts', body)).account,
    updateAccount: async (id: string, patch: PatchAccountBody) =>
      (await call(accountResponseSchema, 'PATCH', accountPath(id), patch)).account,
    deleteAccount: (id: string) => call(okSchema, 'DELETE', accountPath(id)),
    startAccountLogin: (body: AccountLoginBody) =>
      call(accountLoginStartSchema, 'POST', '/api/admin/accounts/login', body),
    accountLogin: (loginId: string, signal?: AbortSignal) =>
      call(
        accountLoginStateSchema,
        'GET',
        `/api/admin/accounts/login/${encodeURIComponent(loginId)}`,
        undefined,
        signal,
      ),

    usage: (filters: UsageFilters & { limit?: number; offset?: number }, signal?: AbortSignal) =>
      call(
        usageListResponseSchema,
        'GET',
        `/api/admin/usage${queryString({ ...filters })}`,
        undefined,
        signal,
      ),
    usageTotals: async (
      query: { groupBy?: UsageGroupBy; since?: number; until?: number; utcOffsetMinutes?: number },
      signal?: AbortSignal,
    ) =>
      (
        await call(
          usageTotalsResponseSchema,
          'GET',
          `/api/admin/usage/totals${queryString({ ...query })}`,
          undefined,
          signal,
        )
      ).rows,

    settings: (signal?: AbortSignal) =>
      call(settingsResponseSchema, 'GET', '/api/admin/settings', undefined, signal),
    updateSettings: (patch: SettingsPatch) =>
      call(settingsResponseSchema, 'PUT', '/api/admin/settings', patch),
    prices: async (signal?: AbortSignal) =>
      (await call(pricesResponseSchema, 'GET', '/api/admin/prices', undefined, signal)).prices,
    setPrice: async (model: string, body: PutPriceBody) =>
      (
        await call(
          pricesResponseSchema,
          'PUT',
          `/api/admin/prices/${encodeURIComponent(model)}`,
          body,
        )
      ).prices,

    image: (id: string, signal?: AbortSignal) =>
      call(imageDetailSchema, 'GET', imagePath(id), undefined, signal),
    setFavourite: async (id: string, favourite: boolean) =>
      (await call(imageResponseSchema, 'PATCH', imagePath(id), { favourite })).image,
    deleteImage: (id: string) => call(okSchema, 'DELETE', imagePath(id)),

    /** Stops the upstream work of a studio run; false when it had already ended. */
    cancelRun: async (runId: string) =>
      (
        await call(
          cancelRunResponseSchema,
          'POST',
          `/api/admin/runs/${encodeURIComponent(runId)}/cancel`,
        )
      ).cancelled,
  };
}

export type AdminClient = ReturnType<typeof createAdminClient>;

/** The admin API client of the gateway pages. */
export const admin = createAdminClient();

export interface AdminEventHandlers {
  onUsage?: (record: UsageRecord) => void;
  onImage?: (image: ImageRecord) => void;
  /** true once the stream is live (again); false while the browser reconnects. */
  onConnection?: (live: boolean) => void;
}

/**
 * Subscribes to GET /api/admin/events (the live request log and new gallery images). The
 * browser reconnects by itself after a drop. Returns the unsubscribe function.
 */
export function subscribeAdminEvents(handlers: AdminEventHandlers): () => void {
  const source = new EventSource(adminUrls.events);
  const read = <S extends z.ZodType>(schema: S, data: string): z.output<S> | null => {
    try {
      const parsed = schema.safeParse(JSON.parse(data));
      return parsed.success ? parsed.data : null;
    } catch {
      return null;
    }
  };
  source.addEventListener('open', () => handlers.onConnection?.(true));
  source.addEventListener('error', () => {
    handlers.onConnection?.(false);
    // An EventSource never tells the status: a refused reconnect (401) looks like any drop.
    doubtSession();
  });
  source.addEventListener('usage', (event) => {
    const record = read(usageRecordSchema, (event as MessageEvent<string>).data);
    if (record) handlers.onUsage?.(record);
  });
  source.addEventListener('image', (event) => {
    const image = read(imageRecordSchema, (event as MessageEvent<string>).data);
    if (image) handlers.onImage?.(image);
  });
  return () => source.close();
}
