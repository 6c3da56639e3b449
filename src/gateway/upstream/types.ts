import type {
  Background,
  Moderation,
  OutputFormat,
  Quality,
  TokenUsage,
} from '../../shared/imageParams';

/** An input image of an edit, already sniffed and measured from its bytes. */
export interface InputImage {
  bytes: Buffer;
  format: OutputFormat;
  width: number;
  height: number;
  hasAlpha: boolean;
  filename: string;
}

/** One upstream image call: always a single image (n fan-out belongs to dispatch). */
export interface ImageJob {
  operation: 'generate' | 'edit';
  /** The upstream's model id, after the account's model mapping. */
  model: string;
  prompt: string;
  size: string;
  quality?: Quality;
  outputFormat?: OutputFormat;
  outputCompression?: number;
  background?: Background;
  moderation?: Moderation;
  /** 0 unless the caller streams. */
  partialImages: number;
  user?: string;
  images: InputImage[];
  mask?: InputImage;
}

/**
 * An image as base64 ASCII bytes, exactly as the upstream sent them. The gateway splices these
 * bytes into its reply: they are never decoded and re-encoded on the response path.
 */
export interface PartialImage {
  b64: Buffer;
  index: number;
}

export interface ImageOutcome {
  b64: Buffer;
  created: number;
  revisedPrompt: string | null;
  /** What the upstream says it used; null where it did not say. */
  size: string | null;
  quality: string | null;
  background: string | null;
  outputFormat: string | null;
  usage: TokenUsage;
}

export interface CallOptions {
  signal: AbortSignal;
  /** Upstream response-headers timeout: long images are normal (spec 7.1). */
  timeoutMs: number;
  onPartial?: (partial: PartialImage) => void;
}

export type AccountKind = 'simulator' | 'api_key' | 'subscription';

/** The account as an adapter needs it; secrets are resolved by the caller (keychain). */
export interface UpstreamAccount {
  id: string;
  name: string;
  kind: AccountKind;
  baseUrl: string;
  /** Bearer credential: an API key or an OAuth access token. */
  credential: string;
  /** Maps a public model id to the upstream's id; identity where absent. */
  modelMap: Record<string, string>;
}

/** A raw reply of a Responses call, handed through to the caller. */
export interface ResponsesReply {
  status: number;
  contentType: string;
  /** Non-streaming: the whole body. */
  body?: Buffer;
  /** Streaming: SSE events, each the exact bytes of one event (ending in a blank line). */
  events?: AsyncIterable<SseEvent>;
}

export interface SseEvent {
  /** The `event:` name, or the `type` inside `data` when the name is absent. */
  event: string | null;
  /** The exact bytes of the whole event block, including the terminating blank line. */
  raw: Buffer;
  /** The `data:` payload bytes (joined when split across lines). */
  data: Buffer;
}

export interface ImageUpstream {
  readonly account: UpstreamAccount;
  generateImage(job: ImageJob, opts: CallOptions): Promise<ImageOutcome>;
  responses(
    body: Record<string, unknown>,
    opts: Omit<CallOptions, 'onPartial'> & { stream: boolean },
  ): Promise<ResponsesReply>;
}
