import { z } from 'zod';
import { defineSetting } from './settingsRepository';

/** Gateway settings kept in SQLite (editable from the studio and the CLI). */
export const SETTINGS = {
  /** A delivered image of another size or format than asked is a 502 (on) or passed on with headers (off). */
  strictDelivery: defineSetting('strict_delivery', z.boolean(), true),
  /** The quality/size fallback ladder for every request (keys and a header can opt in one by one). */
  fallbackLadder: defineSetting('fallback_ladder', z.boolean(), false),
  /** Add the image_generation tool to /v1/responses calls from official agent clients that omit it. */
  injectImageTool: defineSetting('inject_image_tool', z.boolean(), true),
  /** The content pre-filter of spec 8.3.4. */
  contentFilter: defineSetting('content_filter', z.enum(['off', 'block']), 'block'),
  /**
   * The text model subscription accounts use for the Responses bridge when the account sets none.
   * A setting, never a constant in an adapter: a retired hard-coded model broke a peer for everyone.
   */
  bridgeModel: defineSetting('bridge_model', z.string().min(1), 'gpt-5'),
  /** Upstream timeout for outputs up to 2560x1440, and above (spec 8.2: 120 s; 300 s for 4K). */
  timeoutNormalMs: defineSetting(
    'timeout_normal_ms',
    z.number().int().min(1_000).max(3_600_000),
    120_000,
  ),
  timeoutLargeMs: defineSetting(
    'timeout_large_ms',
    z.number().int().min(1_000).max(3_600_000),
    300_000,
  ),
  /** Extra browser origins allowed to call /v1. */
  allowedOrigins: defineSetting('allowed_origins', z.array(z.string()), []),
  /** Keep the images of API callers in the gallery (studio images are always kept). */
  keepApiImages: defineSetting('keep_api_images', z.boolean(), true),
  /**
   * Where the gateway listens, read when it starts (`atelier serve --host/--port` win). The
   * studio offers loopback addresses only: serving the network is a deliberate command-line act.
   */
  serverHost: defineSetting('server_host', z.enum(['127.0.0.1', '::1']), '127.0.0.1'),
  serverPort: defineSetting('server_port', z.number().int().min(0).max(65535), 8787),
  /** The id of the built-in Studio key (api_keys), made on the studio's first /v1 call. */
  studioKeyId: defineSetting('studio_key_id', z.string().nullable(), null),
};
