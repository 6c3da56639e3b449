import type { Response } from 'express';
import { formatSize } from '../../../shared/sizeRules';
import { ImageRunError, runImages } from '../../dispatch/runImages';
import { upstreamTimeoutFor } from '../../dispatch/timeouts';
import type { UpstreamPool } from '../../dispatch/pool';
import type { ImageJob, InputImage } from '../../upstream/types';
import type { UsageDraft } from '../../usage/draft';
import type { ImageOptions } from '../../validation/imageOptions';
import { imageEventPieces, writeImagesJson } from '../imageReply';
import { openSse } from '../sse';

export interface ServeImagesDeps {
  pool: UpstreamPool;
  now: () => number;
}

/**
 * The shared path of generations and edits: fan out n single-image calls, then answer with one
 * JSON body or an event stream.
 *
 * Streaming with n > 1: all n images are made in parallel and their events interleave on one
 * stream. Every event carries `image_index` (0-based, which image it belongs to) and each image
 * ends with its own `*.completed` event, so a client sees exactly n completed events.
 */
export async function serveImages(
  res: Response,
  deps: ServeImagesDeps,
  input: {
    operation: 'generate' | 'edit';
    options: ImageOptions;
    images: InputImage[];
    mask?: InputImage;
  },
): Promise<void> {
  const { options } = input;
  const draft = res.locals.usage as UsageDraft;
  const signal = res.locals.signal as AbortSignal;
  const upstream = deps.pool.pick();
  const job: ImageJob = {
    operation: input.operation,
    model: upstream.account.modelMap[options.model] ?? options.model,
    prompt: options.prompt,
    size: options.size,
    quality: options.quality,
    outputFormat: options.outputFormat,
    outputCompression: options.outputCompression,
    background: options.background,
    moderation: options.moderation,
    partialImages: options.stream ? options.partialImages : 0,
    user: options.user,
    images: input.images,
    mask: input.mask,
  };
  Object.assign(draft, {
    model: options.model,
    size: options.size,
    quality: options.quality ?? 'auto',
    outputFormat: options.outputFormat,
    n: options.n,
    stream: options.stream,
    user: options.user ?? null,
  });
  const eventPrefix = input.operation === 'generate' ? 'image_generation' : 'image_edit';
  const requested = {
    size: options.size,
    quality: options.quality ?? 'auto',
    background: options.background ?? 'auto',
    outputFormat: options.outputFormat,
  };
  const tagged = (fields: Record<string, unknown>, imageIndex: number) =>
    options.n > 1 ? { ...fields, image_index: imageIndex } : fields;

  const sse = options.stream ? openSse(res) : null;
  try {
    const result = await runImages(deps.pool, {
      job,
      n: options.n,
      signal,
      timeoutMs: upstreamTimeoutFor(options.size),
      now: deps.now,
      onPartial: sse
        ? (imageIndex, partial) =>
            sse.event(
              `${eventPrefix}.partial_image`,
              imageEventPieces(
                `${eventPrefix}.partial_image`,
                partial.b64,
                tagged(
                  {
                    partial_image_index: partial.index,
                    created_at: Math.floor(deps.now() / 1000),
                    size: requested.size,
                    quality: requested.quality,
                    background: requested.background,
                    output_format: requested.outputFormat,
                  },
                  imageIndex,
                ),
              ),
            )
        : undefined,
      onImage: sse
        ? (imageIndex, outcome, delivered) =>
            sse.event(
              `${eventPrefix}.completed`,
              imageEventPieces(
                `${eventPrefix}.completed`,
                outcome.b64,
                tagged(
                  {
                    created_at: outcome.created,
                    size: formatSize(delivered),
                    quality: concrete(outcome.quality) ?? requested.quality,
                    background: concrete(outcome.background) ?? requested.background,
                    output_format: delivered.format,
                    usage: outcome.usage,
                  },
                  imageIndex,
                ),
              ),
            )
        : undefined,
    });
    recordSuccess(draft, result, options.model);
    if (sse) {
      sse.end();
      return;
    }
    const first = result.outcomes[0]!;
    writeImagesJson(
      res,
      {
        created: first.created,
        background: concrete(first.background) ?? requested.background,
        model: options.model,
        outputFormat: result.delivered[0]!.format,
        quality: concrete(first.quality) ?? requested.quality,
        size: formatSize(result.delivered[0]!),
        usage: result.usage,
      },
      result.outcomes.map((o) => ({ b64: o.b64, revisedPrompt: o.revisedPrompt })),
    );
  } catch (error) {
    if (!(error instanceof ImageRunError)) throw error;
    draft.parts = [{ model: options.model, usage: error.usage }];
    draft.images = error.imagesDelivered;
    noteAccount(
      draft,
      error.accounts.map((u) => u.account),
    );
    if (error.delivered[0]) draft.deliveredSize = formatSize(error.delivered[0]);
    if (!sse) throw error.apiError;
    draft.streamError = {
      status: error.apiError.status,
      code: error.apiError.code,
      message: error.apiError.message,
    };
    sse.error(error.apiError);
    sse.end();
  }
}

function concrete(value: string | null): string | null {
  return value && value !== 'auto' ? value : null;
}

function recordSuccess(
  draft: UsageDraft,
  result: Awaited<ReturnType<typeof runImages>>,
  model: string,
): void {
  draft.parts = [{ model, usage: result.usage }];
  draft.images = result.outcomes.length;
  draft.deliveredSize = result.delivered[0] ? formatSize(result.delivered[0]) : null;
  noteAccount(
    draft,
    result.accounts.map((u) => u.account),
  );
}

function noteAccount(draft: UsageDraft, accounts: Array<{ id: string; name: string }>): void {
  const ids = [...new Set(accounts.map((a) => a.id))];
  const names = [...new Set(accounts.map((a) => a.name))];
  draft.accountId = ids.length ? ids.join(',') : null;
  draft.accountName = names.length ? names.join(',') : null;
}
