import { randomUUID } from 'node:crypto';
import type { Dispatcher } from 'undici';
import { VERSION } from '../../core/version';
import { failureFromResponse, failureFromThrown } from '../httpFailure';
import { readErrorText } from '../readBody';
import { sendPost } from '../sendPost';
import { parseSse } from '../../bytes/sse';
import type {
  CallOptions,
  ImageJob,
  ImageOutcome,
  ImageUpstream,
  ResponsesReply,
  UpstreamAccount,
} from '../types';
import { readBridgeImage } from './bridgeImage';
import { serialiseJson, type JsonChunks } from './jsonChunks';
import { readImagesJson } from '../imagesJsonReader';
import { bridgeBody, nativeBody } from './requestBodies';
import { assembleResponse, bridgeResponsesBody } from './responsesRelay';

export interface SubscriptionAccount extends UpstreamAccount {
  /** The `chatgpt-account-id` header: the id token's `chatgpt_account_id`. */
  upstreamAccountId: string;
  /** The bridge's text model: an account setting, never hard-coded (a retired one broke a peer). */
  bridgeModel: string;
}

export interface SubscriptionDeps {
  dispatcher: Dispatcher;
  now: () => number;
  /** The account's OAuth tokens (oauth/tokenManager); `account.credential` is not used. */
  tokens: { accessToken(): Promise<string>; forceRefresh(rejected?: string): Promise<string> };
  /** The `originator` header; default 'atelier'. */
  originator?: string;
  /** How long a 404/405 of the native channel sends calls to the bridge before probing again. */
  nativeReprobeMs?: number;
}

const NATIVE_REPROBE_MS = 60 * 60 * 1000;
const NATIVE_MISSING = [404, 405];

type Timing = Pick<CallOptions, 'signal' | 'timeoutMs'>;

/**
 * A subscription (OAuth) account: the native images channel first, the Responses bridge where
 * the backend has no native channel (404/405, remembered per operation for an hour) or where
 * partial images are wanted (the native channel does not stream).
 */
export function createSubscriptionUpstream(
  account: SubscriptionAccount,
  deps: SubscriptionDeps,
): ImageUpstream {
  const base = account.baseUrl.replace(/\/+$/, '');
  const sessionId = randomUUID();
  const reprobeMs = deps.nativeReprobeMs ?? NATIVE_REPROBE_MS;
  const nativeMissingUntil = { generate: 0, edit: 0 };

  /**
   * POSTs JSON with the account's headers. An upstream 401 gets one forced token refresh and one
   * repeat of the same call; other error statuses are thrown as UpstreamErrors unless `pass`
   * lists them.
   */
  async function post(
    path: string,
    body: JsonChunks,
    opts: Timing,
    accept: string,
    pass: readonly number[] = [],
  ): Promise<Dispatcher.ResponseData> {
    try {
      let token = await deps.tokens.accessToken();
      for (let attempt = 0; ; attempt += 1) {
        const res = await sendPost(`${base}${path}`, body, {
          dispatcher: deps.dispatcher,
          signal: opts.signal,
          timeoutMs: opts.timeoutMs,
          headers: {
            authorization: `Bearer ${token}`,
            'chatgpt-account-id': account.upstreamAccountId,
            originator: deps.originator ?? 'atelier',
            'user-agent': `Atelier/${VERSION}`,
            session_id: sessionId,
            'content-type': 'application/json',
            accept,
          },
        });
        if (res.statusCode === 401 && attempt === 0) {
          await readErrorText(res.body);
          token = await deps.tokens.forceRefresh(token);
          continue;
        }
        if (res.statusCode >= 400 && !pass.includes(res.statusCode)) {
          const text = await readErrorText(res.body);
          throw failureFromResponse(res.statusCode, res.headers, text, deps.now());
        }
        return res;
      }
    } catch (error) {
      throw failureFromThrown(error, opts.signal);
    }
  }

  async function viaNative(job: ImageJob, opts: CallOptions): Promise<ImageOutcome | null> {
    const path = job.operation === 'edit' ? '/images/edits' : '/images/generations';
    const res = await post(path, nativeBody(job), opts, 'application/json', NATIVE_MISSING);
    try {
      if (NATIVE_MISSING.includes(res.statusCode)) {
        await readErrorText(res.body);
        nativeMissingUntil[job.operation] = deps.now() + reprobeMs;
        return null;
      }
      return await readImagesJson(res.body, { now: deps.now, onImageStart: opts.onImageStart });
    } catch (error) {
      throw failureFromThrown(error, opts.signal);
    }
  }

  async function viaBridge(job: ImageJob, opts: CallOptions, partials: boolean) {
    const body = bridgeBody(job, account.bridgeModel, partials);
    const res = await post('/responses', body, opts, 'text/event-stream');
    try {
      return await readBridgeImage(res.body, {
        onPartial: partials ? opts.onPartial : undefined,
        onImageStart: opts.onImageStart,
        headers: res.headers,
        now: deps.now,
      });
    } catch (error) {
      throw failureFromThrown(error, opts.signal);
    }
  }

  return {
    account,

    async generateImage(job, opts) {
      const partials = job.partialImages > 0 && opts.onPartial !== undefined;
      if (!partials && deps.now() >= nativeMissingUntil[job.operation]) {
        const outcome = await viaNative(job, opts);
        if (outcome) return outcome;
      }
      return viaBridge(job, opts, partials);
    },

    async responses(payload, opts): Promise<ResponsesReply> {
      const body = serialiseJson(bridgeResponsesBody(payload, account.bridgeModel));
      const res = await post('/responses', body, opts, 'text/event-stream');
      if (opts.stream) {
        const contentType = String(res.headers['content-type'] ?? 'text/event-stream');
        return { status: res.statusCode, contentType, events: parseSse(res.body) };
      }
      try {
        const assembled = await assembleResponse(parseSse(res.body), res.headers, deps.now);
        return { status: 200, contentType: 'application/json', body: assembled };
      } catch (error) {
        throw failureFromThrown(error, opts.signal);
      }
    },
  };
}
