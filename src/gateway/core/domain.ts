/*
 * Domain types more than one layer speaks, in one module that imports nothing of the gateway:
 * a layer that needs one of these does not have to import the layer that happens to make it
 * (dispatch and the replies carry a spooled image without importing the gallery; dispatch and
 * the upstream adapters read an account without accounts/ importing either of them back).
 */
import type { ACCOUNT_KINDS, CooldownKind } from '../../shared/admin';

export type { CooldownKind };

/** Base URL of accounts served by the in-process simulator (its port changes every start). */
export const BUILTIN = 'builtin';

/** How an account reaches its upstream: the built-in simulator, an API key, a subscription. */
export type AccountKind = (typeof ACCOUNT_KINDS)[number];

/** An image's bytes, decoded into a temporary file while it streamed through. */
export interface SpooledImage {
  path: string;
  /** The decoded size in bytes. */
  bytes: number;
}

/**
 * The gallery's copy of an image that streams through the gateway, written while it streams:
 * each base64 piece is decoded as it passes (in strings of at most 64 KB, into a pooled buffer:
 * about 5 ms of CPU for a 4K image) and each full megabyte written to a file, so the gateway holds
 * none of the socket's pieces for the gallery and the file needs no second pass. Holding the
 * pieces pushed them into the old generation of the heap; spooling the base64 text and decoding
 * it later wrote and read a third more bytes, and fresh memory is dear on the machines measured
 * (docs/benchmarks.md). The file is written past the page cache where the system allows
 * (gallery/uncachedFile.ts). A spool nobody claims is deleted.
 *
 * At most eight buffers wait for the disk per image, and 32 for all images together: beyond that,
 * `write` returns a promise, which holds back the upstream read like the caller's socket does.
 */
export interface ImageSpool {
  write(piece: Buffer): void | Promise<void>;
  /** Flushes the file; null if writing it failed (the image is then simply not kept). */
  finish(): Promise<SpooledImage | null>;
  /** Deletes the file (a failed image, or one the gallery did not take). */
  discard(): Promise<void>;
}

/** An upstream account as stored (no secrets: those are in the SecretStore under `secretName`). */
export interface AccountRecord {
  id: string;
  name: string;
  kind: AccountKind;
  /** `free`, `plus`, `pro`, `team`, ... for subscription accounts; `api` for API-key accounts. */
  tier: string;
  groupName: string;
  /** Concurrency budget in weight units (a 1024-class image weighs 1; see dispatch/sizeClass.ts). */
  capacity: number;
  enabled: boolean;
  /** Public model id -> upstream model id. */
  modelMap: Record<string, string>;
  /** The largest output (pixels) this account really delivers. */
  maxPixels: number;
  baseUrl: string;
  /** Subscription accounts: the OAuth issuer and the bridge's text model (a setting, never hard-coded). */
  issuer: string | null;
  bridgeModel: string | null;
  /** Subscription accounts: the `chatgpt-account-id` header value, from the id token. */
  upstreamAccountId: string | null;
  secretName: string | null;
  /** Why the account is out of service, when it is (a permanent refresh failure, say). */
  disabledReason: string | null;
  cooldownUntil: number | null;
  cooldownReason: string | null;
  /** Why it rests: a usage window, a rate limit, or outages seen by several requests. */
  cooldownKind: CooldownKind | null;
  createdAt: number;
}
