import { request, type Dispatcher } from 'undici';
import { SIM_SEED_HEADER, SIM_VARIANT_HEADER } from '../../simulator/variant';
import { failureFromResponse, failureFromThrown } from './httpFailure';
import { readImageEvents } from './imageEventsReader';
import { readImagesJson } from './imagesJsonReader';
import { buildMultipart, type MultipartPart } from './multipartBody';
import { readAll, readErrorText } from './readBody';
import { sendPost } from './sendPost';
import { upstreamRequestIdOf } from './upstreamRequestId';
import { parseSse } from '../bytes/sse';
import type {
  CallOptions,
  ImageJob,
  ImageOutcome,
  ImageUpstream,
  ResponsesReply,
  UpstreamAccount,
} from './types';

const MIME = { png: 'image/png', jpeg: 'image/jpeg', webp: 'image/webp' } as const;

export interface HttpDeps {
  dispatcher: Dispatcher;
  now: () => number;
}

/**
 * The platform Images API (and `/responses`) with a bearer key, at a configurable base URL that
 * ends in `/v1`, so any OpenAI-compatible relay, a self-hosted engine, or the built-in simulator
 * can stand behind it. Only `model` is rewritten; everything else is the caller's request.
 */
export function createApiKeyUpstream(account: UpstreamAccount, deps: HttpDeps): ImageUpstream {
  const base = account.baseUrl.replace(/\/+$/, '');
  const auth = { authorization: `Bearer ${account.credential}` };
  // Only the simulator hears which of n images a call makes and the request's seed; a real
  // upstream gets no extra header.
  const variantHeader = (job: ImageJob): Record<string, string> =>
    account.kind === 'simulator'
      ? {
          ...(job.variant ? { [SIM_VARIANT_HEADER]: String(job.variant) } : {}),
          ...(job.seed ? { [SIM_SEED_HEADER]: job.seed } : {}),
        }
      : {};

  async function post(
    path: string,
    body: { contentType: string; chunks: Buffer[]; length: number },
    opts: CallOptions,
    accept: string,
    extraHeaders: Record<string, string> = {},
  ) {
    try {
      const res = await sendPost(`${base}${path}`, body, {
        dispatcher: deps.dispatcher,
        signal: opts.signal,
        timeoutMs: opts.timeoutMs,
        headers: { ...auth, ...extraHeaders, 'content-type': body.contentType, accept },
      });
      if (res.statusCode >= 400) {
        const text = await readErrorText(res.body);
        throw failureFromResponse(res.statusCode, res.headers, text, deps.now());
      }
      return res;
    } catch (error) {
      throw failureFromThrown(error, opts.signal);
    }
  }

  return {
    account,

    async probe(opts) {
      try {
        const res = await request(`${base}/models`, {
          method: 'GET',
          dispatcher: deps.dispatcher,
          signal: opts.signal,
          headersTimeout: opts.timeoutMs,
          bodyTimeout: opts.timeoutMs,
          headers: { ...auth, accept: 'application/json' },
        });
        const text = await readErrorText(res.body);
        if (res.statusCode >= 400)
          throw failureFromResponse(res.statusCode, res.headers, text, deps.now());
      } catch (error) {
        throw failureFromThrown(error, opts.signal);
      }
    },

    async generateImage(job: ImageJob, opts: CallOptions): Promise<ImageOutcome> {
      const stream = job.partialImages > 0 && opts.onPartial !== undefined;
      const body =
        job.operation === 'generate' ? jsonBody(job, stream) : multipartBody(job, stream);
      const path = job.operation === 'generate' ? '/images/generations' : '/images/edits';
      const res = await post(
        path,
        body,
        opts,
        stream ? 'text/event-stream' : 'application/json',
        variantHeader(job),
      );
      try {
        const outcome = stream
          ? await readImageEvents(res.body, { ...opts, now: deps.now })
          : await readImagesJson(res.body, { now: deps.now, onImageStart: opts.onImageStart });
        return { ...outcome, upstreamRequestId: upstreamRequestIdOf(res.headers) };
      } catch (error) {
        throw failureFromThrown(error, opts.signal);
      }
    },

    async responses(payload, opts): Promise<ResponsesReply> {
      const bytes = Buffer.from(JSON.stringify(payload));
      const res = await post(
        '/responses',
        { contentType: 'application/json', chunks: [bytes], length: bytes.length },
        { signal: opts.signal, timeoutMs: opts.timeoutMs },
        opts.stream ? 'text/event-stream' : 'application/json',
      );
      const contentType = String(res.headers['content-type'] ?? 'application/json');
      const upstreamRequestId = upstreamRequestIdOf(res.headers);
      if (opts.stream) {
        return {
          status: res.statusCode,
          contentType,
          events: parseSse(res.body),
          upstreamRequestId,
        };
      }
      return {
        status: res.statusCode,
        contentType,
        body: await readAll(res.body),
        upstreamRequestId,
      };
    },
  };
}

function scalarFields(job: ImageJob, stream: boolean): Record<string, string | number | boolean> {
  const fields: Record<string, string | number | boolean> = {
    model: job.model,
    prompt: job.prompt,
    n: 1,
    size: job.size,
  };
  if (job.quality) fields.quality = job.quality;
  if (job.outputFormat) fields.output_format = job.outputFormat;
  if (job.outputCompression !== undefined) fields.output_compression = job.outputCompression;
  if (job.background) fields.background = job.background;
  if (job.moderation) fields.moderation = job.moderation;
  if (job.user) fields.user = job.user;
  if (stream) {
    fields.stream = true;
    fields.partial_images = job.partialImages;
  }
  return fields;
}

function jsonBody(job: ImageJob, stream: boolean) {
  const bytes = Buffer.from(JSON.stringify(scalarFields(job, stream)));
  return { contentType: 'application/json', chunks: [bytes], length: bytes.length };
}

function multipartBody(job: ImageJob, stream: boolean) {
  const parts: MultipartPart[] = Object.entries(scalarFields(job, stream)).map(([name, v]) => ({
    name,
    value: String(v),
  }));
  job.images.forEach((image, i) =>
    parts.push({
      name: 'image[]',
      value: {
        bytes: image.bytes,
        filename: image.filename || `image-${i}.${image.format}`,
        contentType: MIME[image.format],
      },
    }),
  );
  if (job.mask) {
    parts.push({
      name: 'mask',
      value: {
        bytes: job.mask.bytes,
        filename: `mask.${job.mask.format}`,
        contentType: MIME[job.mask.format],
      },
    });
  }
  return buildMultipart(parts);
}
