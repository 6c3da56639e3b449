import { z } from 'zod';
import { usageRecordSchema } from './usageRecord';

/**
 * The admin API between the studio and its gateway (docs/admin-api.md): one schema per body, used
 * by the gateway to check what arrives and by the renderer to check what it gets back.
 */

/**
 * The session cookie's name, set by GET /login?token=... (HttpOnly: renderer code never sees it).
 * Cookies ignore ports: two studios on 127.0.0.1 with one name would overwrite each other's
 * session and sign each other out (issue 22), so the name carries the port served.
 */
export const STUDIO_SESSION_COOKIE = 'atelier_session';
export const studioSessionCookie = (port: number): string => `${STUDIO_SESSION_COOKIE}_${port}`;
/** Every admin call (and every /v1 call made as the studio) carries this header with value `1`. */
export const STUDIO_HEADER = 'x-atelier-studio';
/** On an edit made from the gallery: the id of the image being edited (the edit chain). */
export const PARENT_IMAGE_HEADER = 'x-atelier-parent-image';
/**
 * On the studio's own /v1 image calls: an id the studio chose for the run, so that Cancel can
 * stop the upstream work with POST /api/admin/runs/:runId/cancel (a dropped connection alone
 * never does: the image would still be made, billed and kept).
 */
export const STUDIO_RUN_HEADER = 'x-atelier-run';
/** What a run id looks like (the studio sends a random UUID). */
export const RUN_ID_PATTERN = /^[A-Za-z0-9_-]{8,64}$/;

const id = z.string().min(1).max(200);
const nullableInt = z.number().int().nullable();
/** Query strings carry text: `limit=50` is "50". */
const queryInt = (min: number, max: number) => z.coerce.number().int().min(min).max(max);
/** Names and groups: what the keys and accounts tables show. */
const label = z.string().trim().min(1).max(100);
const flag = z.enum(['0', '1', 'true', 'false']).transform((v) => v === '1' || v === 'true');

export const okSchema = z.object({ ok: z.literal(true) });

/**
 * GET /api/admin/session: the studio's session is live, and when it began (its login). Every tab
 * of one login shares it, so the session budget sums the Studio key's spend from here (issue 22).
 */
export const studioSessionInfoSchema = z.object({
  ok: z.literal(true),
  startedAt: z.number().nullable(),
});
export type StudioSessionInfo = z.infer<typeof studioSessionInfoSchema>;
export type Ok = z.infer<typeof okSchema>;

/** POST /api/admin/runs/:runId/cancel: whether upstream work of that run was still going. */
export const cancelRunResponseSchema = z.object({ cancelled: z.boolean() });
export type CancelRunResponse = z.infer<typeof cancelRunResponseSchema>;

/**
 * GET /api/admin/runs/live: the studio's runs still going, oldest first. Each runs as a job the
 * gateway keeps (docs/api.md, "Long jobs"), so a page that was closed or reloaded finds it here
 * and follows it with GET /api/admin/runs/:runId/events?starting_after=N: its image events, each
 * with its `sequence_number`, from the one after N.
 */
export const liveRunSchema = z.object({
  runId: z.string(),
  requestId: z.string(),
  endpoint: z.enum(['generations', 'edits']),
  model: z.string(),
  prompt: z.string(),
  size: z.string(),
  quality: z.string(),
  n: z.number().int(),
  parentImageId: z.string().nullable(),
  createdAt: z.number(),
  status: z.enum(['queued', 'in_progress']),
});
export type LiveRun = z.infer<typeof liveRunSchema>;
export const liveRunsResponseSchema = z.object({ runs: z.array(liveRunSchema) });
/** GET /api/admin/runs/:runId/events: from the event after `starting_after` (-1 or none: all). */
export const runEventsQuerySchema = z.strictObject({
  starting_after: z
    .string()
    .regex(/^-?\d{1,15}$/, 'starting_after must be a sequence number (an integer >= 0)')
    .optional(),
});
export type LiveRunsResponse = z.infer<typeof liveRunsResponseSchema>;

// --- keys -----------------------------------------------------------------------------------

export const BUDGET_PERIODS = ['day', 'month', 'total'] as const;
const MAX_LIMIT_COUNT = 1_000_000;

/**
 * A key's own limits (docs/api.md, "Key limits"); null is none. The budget is in integer
 * micro-dollars per `budgetPeriod` (a budget without a period is monthly); `expiresAt` is ms.
 */
const keyLimitFields = {
  budgetMicros: z.number().int().min(1).max(1e15).nullable(),
  budgetPeriod: z.enum(BUDGET_PERIODS).nullable(),
  rpmLimit: z.number().int().min(1).max(MAX_LIMIT_COUNT).nullable(),
  imagesPerDay: z.number().int().min(1).max(MAX_LIMIT_COUNT).nullable(),
  expiresAt: z.number().int().min(0).max(253_402_214_400_000).nullable(),
};
const keyLimitInput = {
  budgetMicros: keyLimitFields.budgetMicros.optional(),
  budgetPeriod: keyLimitFields.budgetPeriod.optional(),
  rpmLimit: keyLimitFields.rpmLimit.optional(),
  imagesPerDay: keyLimitFields.imagesPerDay.optional(),
  expiresAt: keyLimitFields.expiresAt.optional(),
};

export const keyViewSchema = z.object({
  id,
  name: z.string(),
  group: z.string(),
  /** Shown as `atl_<prefix>…`. */
  prefix: z.string(),
  status: z.enum(['active', 'disabled', 'deleted']),
  createdAt: z.number(),
  lastUsedAt: z.number().nullable(),
  concurrencyLimit: nullableInt,
  fallbackLadder: z.boolean(),
  /** All-time requests and spend (integer micro-dollars) from the usage log. */
  requests: z.number().int(),
  costMicros: z.number().int(),
  /** The built-in Studio key: it cannot be disabled or deleted. */
  builtIn: z.boolean(),
  ...keyLimitFields,
  /** Use against the limits now (in-flight reservations included); UTC days and months. */
  limitUse: z.object({
    /** Spent in the budget's current period; null without a budget. */
    budgetUsedMicros: nullableInt,
    /** When the budget's period resets (ms); null without a budget or for a total one. */
    budgetResetsAt: nullableInt,
    imagesToday: z.number().int(),
    requestsLastMinute: z.number().int(),
  }),
});
export type KeyView = z.infer<typeof keyViewSchema>;

export const keysResponseSchema = z.object({ keys: z.array(keyViewSchema) });
export type KeysResponse = z.infer<typeof keysResponseSchema>;

export const createKeyBodySchema = z.strictObject({
  name: label,
  group: label.optional(),
  concurrencyLimit: z.number().int().min(1).max(1000).nullable().optional(),
  fallbackLadder: z.boolean().optional(),
  ...keyLimitInput,
});
export type CreateKeyBody = z.infer<typeof createKeyBodySchema>;

/** `key` is the plaintext: shown once, never again. */
export const createKeyResponseSchema = z.object({ key: z.string(), record: keyViewSchema });
export type CreateKeyResponse = z.infer<typeof createKeyResponseSchema>;

export const patchKeyBodySchema = z.strictObject({
  name: label.optional(),
  group: label.optional(),
  status: z.enum(['active', 'disabled']).optional(),
  concurrencyLimit: z.number().int().min(1).max(1000).nullable().optional(),
  fallbackLadder: z.boolean().optional(),
  ...keyLimitInput,
});
export type PatchKeyBody = z.infer<typeof patchKeyBodySchema>;

export const keyResponseSchema = z.object({ record: keyViewSchema });

/**
 * `event: budget` on /api/admin/events: a key's spend in its budget period passed 50, 80 or 100 %
 * of the budget (once per threshold and period).
 */
export const budgetAlertSchema = z.object({
  apiKeyId: id,
  /** The key's name when the event is sent. */
  apiKeyName: z.string().nullable().optional(),
  percent: z.union([z.literal(50), z.literal(80), z.literal(100)]),
  period: z.enum(BUDGET_PERIODS),
  budgetMicros: z.number().int(),
  /** Settled spend in the period after the request that passed the threshold. */
  spentMicros: z.number().int(),
  periodStart: z.number().int(),
  /** null for a total budget. */
  resetsAt: z.number().int().nullable(),
  at: z.number().int(),
});
export type BudgetAlert = z.infer<typeof budgetAlertSchema>;
export type KeyResponse = z.infer<typeof keyResponseSchema>;

// --- accounts -------------------------------------------------------------------------------

export const ACCOUNT_KINDS = ['simulator', 'api_key', 'subscription'] as const;
/** Why an account rests (see docs/dispatch.md, Failures). */
export const COOLDOWN_KINDS = ['usage_limit', 'rate_limit', 'outage'] as const;
export type CooldownKind = (typeof COOLDOWN_KINDS)[number];

export const ACCOUNT_STATES = [
  'ready',
  'failing',
  'cooling',
  'disabled',
  'out_of_service',
] as const;

export const accountViewSchema = z.object({
  id,
  name: z.string(),
  kind: z.enum(ACCOUNT_KINDS),
  tier: z.string(),
  groupName: z.string(),
  /** Concurrency budget in weight units (a 1024-class image weighs 1). */
  capacity: z.number().int(),
  enabled: z.boolean(),
  modelMap: z.record(z.string(), z.string()),
  maxPixels: z.number().int(),
  baseUrl: z.string(),
  issuer: z.string().nullable(),
  bridgeModel: z.string().nullable(),
  upstreamAccountId: z.string().nullable(),
  disabledReason: z.string().nullable(),
  cooldownUntil: z.number().nullable(),
  cooldownReason: z.string().nullable(),
  /** Why it rests: a used-up usage window, a rate limit, or outages seen by several requests. */
  cooldownKind: z.enum(COOLDOWN_KINDS).nullable(),
  createdAt: z.number(),
  /** One word and a sentence, as `atelier accounts list` shows them. */
  status: z.object({ state: z.enum(ACCOUNT_STATES), detail: z.string() }),
  /** Weight units in flight right now. */
  load: z.number(),
});
export type AccountView = z.infer<typeof accountViewSchema>;

export const accountsResponseSchema = z.object({
  accounts: z.array(accountViewSchema),
  /** No account is configured: the built-in offline simulator serves every request. */
  simulatorOnly: z.boolean(),
});
export type AccountsResponse = z.infer<typeof accountsResponseSchema>;

/** POST /api/admin/accounts/:id/test: one cheap call to the account, timed. */
export const accountTestResponseSchema = z.object({
  ok: z.boolean(),
  /** The upstream's answer or why it could not be reached, in a sentence. */
  detail: z.string(),
  latencyMs: z.number(),
  /** The account after the test (failing or ready by its outcome). */
  account: accountViewSchema,
});
export type AccountTestResponse = z.infer<typeof accountTestResponseSchema>;

const accountCommon = {
  name: label,
  tier: z.string().trim().min(1).max(50).optional(),
  group: label.optional(),
  capacity: z.number().int().min(1).max(1000).optional(),
  maxPixels: z.number().int().min(1).optional(),
};

export const createAccountBodySchema = z.discriminatedUnion('kind', [
  z.strictObject({
    kind: z.literal('api_key'),
    ...accountCommon,
    baseUrl: z.url({ protocol: /^https?$/ }),
    /** Goes to the OS keychain; never stored in the database or returned. */
    apiKey: z.string().trim().min(1).max(10_000),
  }),
  z.strictObject({ kind: z.literal('simulator'), ...accountCommon }),
]);
export type CreateAccountBody = z.infer<typeof createAccountBodySchema>;

export const accountResponseSchema = z.object({ account: accountViewSchema });
export type AccountResponse = z.infer<typeof accountResponseSchema>;

export const patchAccountBodySchema = z.strictObject({
  enabled: z.boolean().optional(),
  capacity: z.number().int().min(1).max(1000).optional(),
  tier: z.string().trim().min(1).max(50).optional(),
  group: label.optional(),
  maxPixels: z.number().int().min(1).optional(),
  bridgeModel: z.string().trim().min(1).max(100).nullable().optional(),
  clearCooldown: z.literal(true).optional(),
});
export type PatchAccountBody = z.infer<typeof patchAccountBodySchema>;

export const accountLoginBodySchema = z.strictObject({
  name: label,
  issuer: z.url({ protocol: /^https?$/ }).optional(),
  baseUrl: z.url({ protocol: /^https?$/ }).optional(),
  bridgeModel: z.string().trim().min(1).max(100).optional(),
  group: label.optional(),
  capacity: z.number().int().min(1).max(1000).optional(),
});
export type AccountLoginBody = z.infer<typeof accountLoginBodySchema>;

/** The studio opens `authorizeUrl` in the system browser, then polls the login's state. */
export const accountLoginStartSchema = z.object({ loginId: z.string(), authorizeUrl: z.string() });
export type AccountLoginStart = z.infer<typeof accountLoginStartSchema>;

export const accountLoginStateSchema = z.object({
  state: z.enum(['waiting', 'done', 'failed']),
  account: accountViewSchema.optional(),
  error: z.string().optional(),
});
export type AccountLoginState = z.infer<typeof accountLoginStateSchema>;

// --- usage ----------------------------------------------------------------------------------

export { usageRecordSchema, type UsageRecord } from './usageRecord';

const usageFilterFields = {
  since: queryInt(0, Number.MAX_SAFE_INTEGER).optional(),
  until: queryInt(0, Number.MAX_SAFE_INTEGER).optional(),
  apiKeyId: id.optional(),
  /** An upstream account's id (`simulator` for the built-in simulator). */
  account: id.optional(),
  model: z.string().min(1).max(100).optional(),
  endpoint: z.string().min(1).max(100).optional(),
  status: z
    .union([z.enum(['success', 'error', 'cancelled']), z.coerce.number().int().min(100).max(599)])
    .optional(),
};

/** Query of GET /api/admin/usage and /usage.csv (values arrive as strings). */
export const usageQuerySchema = z.object({
  ...usageFilterFields,
  limit: queryInt(1, 1000).optional(),
  offset: queryInt(0, Number.MAX_SAFE_INTEGER).optional(),
});
export type UsageQuery = z.input<typeof usageQuerySchema>;

/**
 * A row of GET /api/admin/usage: the record, and what the gallery kept from it (the usage log
 * itself stores no prompt): the kept images' ids, in order, and their prompt (null: none kept).
 */
export const usageListRecordSchema = usageRecordSchema.extend({
  keptImageIds: z.array(z.string()),
  prompt: z.string().nullable(),
});
export type UsageListRecord = z.infer<typeof usageListRecordSchema>;

export const usageListResponseSchema = z.object({
  records: z.array(usageListRecordSchema),
  /** Records matching the filters, over all pages. */
  total: z.number().int(),
});
export type UsageListResponse = z.infer<typeof usageListResponseSchema>;

export const USAGE_GROUPS = ['day', 'model', 'key', 'account'] as const;
export type UsageGroupBy = (typeof USAGE_GROUPS)[number];

export const usageTotalsQuerySchema = z.object({
  groupBy: z.enum(USAGE_GROUPS).optional(),
  since: usageFilterFields.since,
  until: usageFilterFields.until,
  apiKeyId: usageFilterFields.apiKeyId,
  account: usageFilterFields.account,
  /** East positive (`-new Date().getTimezoneOffset()`), so days break at the user's midnight. */
  utcOffsetMinutes: z.coerce.number().int().min(-840).max(840).optional(),
});
export type UsageTotalsQuery = z.input<typeof usageTotalsQuerySchema>;

export const usageTotalSchema = z.object({
  /** `YYYY-MM-DD`, model, key id or account id; null for rows without one (or no groupBy). */
  key: z.string().nullable(),
  /** Human name for `key`. */
  label: z.string().nullable(),
  requests: z.number().int(),
  /** Failed requests: the callers' own cancels are not among them (`cancelled`). */
  errors: z.number().int(),
  cancelled: z.number().int(),
  inputTokens: z.number().int(),
  inputTextTokens: z.number().int(),
  inputImageTokens: z.number().int(),
  outputTokens: z.number().int(),
  outputTextTokens: z.number().int(),
  outputImageTokens: z.number().int(),
  totalTokens: z.number().int(),
  images: z.number().int(),
  costMicros: z.number().int(),
});
export type UsageTotal = z.infer<typeof usageTotalSchema>;

export const usageTotalsResponseSchema = z.object({ rows: z.array(usageTotalSchema) });
export type UsageTotalsResponse = z.infer<typeof usageTotalsResponseSchema>;

export const PERFORMANCE_GROUPS = ['key', 'account'] as const;
export const PERFORMANCE_BUCKETS = ['hour', 'day'] as const;

/** GET /api/admin/usage/performance: latency percentiles and success rate over time. */
export const usagePerformanceQuerySchema = z.object({
  /** Absent: every request together, per bucket. */
  groupBy: z.enum(PERFORMANCE_GROUPS).optional(),
  bucket: z.enum(PERFORMANCE_BUCKETS).optional(),
  since: usageFilterFields.since,
  until: usageFilterFields.until,
  apiKeyId: usageFilterFields.apiKeyId,
  account: usageFilterFields.account,
  utcOffsetMinutes: usageTotalsQuerySchema.shape.utcOffsetMinutes,
});
export type UsagePerformanceQuery = z.input<typeof usagePerformanceQuerySchema>;

export const usagePerformanceRowSchema = z.object({
  /** `YYYY-MM-DD`, or `YYYY-MM-DDTHH` for hours, in the caller's offset. */
  bucket: z.string(),
  /** Key or account id; null without groupBy (or for rows without one). */
  key: z.string().nullable(),
  label: z.string().nullable(),
  requests: z.number().int(),
  /** Requests answered below 400. */
  successes: z.number().int(),
  /** successes / requests, 0 to 1. */
  successRate: z.number(),
  /** Nearest-rank percentiles of the successful requests' latency (ms); null without one. */
  p50Ms: z.number().int().nullable(),
  p95Ms: z.number().int().nullable(),
  p99Ms: z.number().int().nullable(),
});
export type UsagePerformanceRow = z.infer<typeof usagePerformanceRowSchema>;

export const usagePerformanceResponseSchema = z.object({
  rows: z.array(usagePerformanceRowSchema),
  /** More rows matched than one answer holds (MAX_PERFORMANCE_ROWS): narrow the range. */
  truncated: z.boolean(),
});
export type UsagePerformanceResponse = z.infer<typeof usagePerformanceResponseSchema>;

/** The most rows one answer of /usage/performance holds. */
export const MAX_PERFORMANCE_ROWS = 5000;

// --- settings -------------------------------------------------------------------------------

/** An origin as browsers send it: scheme, host and optional port, nothing else. */
const origin = z
  .string()
  .regex(/^https?:\/\/[^/\s?#]+$/, 'an origin such as http://localhost:5173 (no path)');

export const settingsSchema = z.object({
  /** A delivered image of another size or format than asked is a 502 (on) or passed on (off). */
  strictDelivery: z.boolean(),
  /** The quality/size fallback ladder for every request. */
  fallbackLadder: z.boolean(),
  /** Add the image tool to /v1/responses calls of official agent clients that omit it. */
  injectImageTool: z.boolean(),
  /** The content pre-filter. */
  contentFilter: z.enum(['off', 'block']),
  /** The Responses bridge's text model for subscription accounts that set none. */
  bridgeModel: z.string().trim().min(1).max(100),
  /** Upstream timeouts for outputs up to 2560x1440, and above. */
  timeoutNormalMs: z.number().int().min(1_000).max(3_600_000),
  timeoutLargeMs: z.number().int().min(1_000).max(3_600_000),
  /** Extra browser origins allowed to call /v1. */
  allowedOrigins: z.array(origin).max(100),
  /** Keep images made by API callers in the gallery (studio images are always kept). */
  keepApiImages: z.boolean(),
  /** Where the gateway listens from its next start: a loopback address, and a port (0 = any free). */
  serverHost: z.enum(['127.0.0.1', '::1']),
  serverPort: z.number().int().min(0).max(65535),
});
export type Settings = z.infer<typeof settingsSchema>;

export const settingsPatchSchema = settingsSchema.partial().strict();
export type SettingsPatch = z.infer<typeof settingsPatchSchema>;

/** Where the gateway runs now (the saved `serverHost`/`serverPort` apply from its next start). */
export const serverInfoSchema = z.object({
  address: z.string(),
  host: z.string(),
  port: z.number().int(),
  dataDir: z.string(),
});
export type ServerInfo = z.infer<typeof serverInfoSchema>;

export const settingsResponseSchema = z.object({
  settings: settingsSchema,
  server: serverInfoSchema,
});
export type SettingsResponse = z.infer<typeof settingsResponseSchema>;

// --- prices ---------------------------------------------------------------------------------

/** Dollars per 1M tokens as a decimal string with at most 6 decimals, e.g. "30.00" or "1.25". */
const dollars = z.string().regex(/^\d+(\.\d{1,6})?$/, 'dollars per 1M tokens, e.g. 1.25');

export const priceViewSchema = z.object({
  model: z.string(),
  textInput: dollars,
  imageInput: dollars,
  textOutput: dollars,
  imageOutput: dollars,
  updatedAt: z.number(),
});
export type PriceView = z.infer<typeof priceViewSchema>;

export const pricesResponseSchema = z.object({ prices: z.array(priceViewSchema) });
export type PricesResponse = z.infer<typeof pricesResponseSchema>;

/** A new model needs all four; an existing one any of them. */
export const putPriceBodySchema = z.strictObject({
  textInput: dollars.optional(),
  imageInput: dollars.optional(),
  textOutput: dollars.optional(),
  imageOutput: dollars.optional(),
});
export type PutPriceBody = z.infer<typeof putPriceBodySchema>;

// --- images ---------------------------------------------------------------------------------

export const IMAGE_SOURCES = ['studio', 'api'] as const;
export type ImageSource = (typeof IMAGE_SOURCES)[number];

export const imageRecordSchema = z.object({
  id,
  requestId: z.string(),
  /** Which of the request's n images. */
  index: z.number().int(),
  createdAt: z.number(),
  source: z.enum(IMAGE_SOURCES),
  /** `/images/generations` or `/images/edits`. */
  endpoint: z.string(),
  prompt: z.string(),
  revisedPrompt: z.string().nullable(),
  model: z.string(),
  requestedSize: z.string(),
  deliveredSize: z.string(),
  quality: z.string().nullable(),
  outputFormat: z.string(),
  outputCompression: z.number().int().nullable(),
  background: z.string().nullable(),
  moderation: z.string().nullable(),
  width: z.number().int(),
  height: z.number().int(),
  /** Size of the image file. */
  bytes: z.number().int(),
  /** This image's share of its request's tokens and cost. */
  inputTokens: z.number().int(),
  outputTokens: z.number().int(),
  totalTokens: z.number().int(),
  costMicros: z.number().int(),
  favourite: z.boolean(),
  /** Rejected on Generate: hidden from the gallery unless asked for (`rejected=1`). */
  rejected: z.boolean(),
  /** The gallery image this one was edited from. */
  parentId: z.string().nullable(),
  /** The edit that made it had a mask: GET .../mask serves it. */
  hasMask: z.boolean(),
  apiKeyId: z.string().nullable(),
  /** The fallback ladder step that delivered it, when the ladder was in use. */
  fallbackStep: z.number().int().nullable(),
});
export type ImageRecord = z.infer<typeof imageRecordSchema>;

/** The most thumbnails one page sends inline: a first screen of the grid on a large window. */
export const MAX_INLINE_THUMBS = 60;

/** The longest prompt text and model name the gallery searches for (the studio says so). */
export const MAX_IMAGE_SEARCH_TEXT = 500;
export const MAX_IMAGE_SEARCH_MODEL = 100;

export const imagesQuerySchema = z
  .object({
    /** Words of the prompt (substring match). */
    q: z.string().max(MAX_IMAGE_SEARCH_TEXT).optional(),
    favourite: flag.optional(),
    /** 1: only the rejected images; absent: every image but them. */
    rejected: flag.optional(),
    /** Only the images on this board (its id). */
    board: id.optional(),
    source: z.enum(IMAGE_SOURCES).optional(),
    /** The model the request named (exact). */
    model: z.string().trim().min(1).max(MAX_IMAGE_SEARCH_MODEL).optional(),
    /** WIDTHxHEIGHT: the image's own size, or the size the request asked for. */
    size: z
      .string()
      .regex(/^(\d{1,5}x\d{1,5}|auto)$/, 'expected a size like 1024x1536, or auto')
      .optional(),
    /** The API key that made the image (its id); studio images have none. */
    key: id.optional(),
    /** Made at or after this time (ms since the epoch). */
    since: queryInt(0, Number.MAX_SAFE_INTEGER).optional(),
    /** Made before this time (ms since the epoch, exclusive). */
    until: queryInt(0, Number.MAX_SAFE_INTEGER).optional(),
    limit: queryInt(1, 200).optional(),
    /** Cursor: `nextBefore` of the previous page. */
    before: queryInt(0, Number.MAX_SAFE_INTEGER).optional(),
    /** How many of the page's first thumbnails to send inline (`thumbs` of the reply). */
    thumbs: queryInt(1, MAX_INLINE_THUMBS).optional(),
  })
  .refine((v) => v.since === undefined || v.until === undefined || v.since < v.until, {
    path: ['until'],
    message: 'must be later than since',
  });
export type ImagesQuery = z.input<typeof imagesQuerySchema>;

export const imagesPageSchema = z.object({
  images: z.array(imageRecordSchema),
  /** Pass as `before` for the next page; null on the last page. */
  nextBefore: z.number().nullable(),
  /**
   * With `thumbs=N`: the first N images' thumbnails (WebP) as base64, by image id, those already
   * made (one still to be made is fetched on its own, as any other).
   */
  thumbs: z.record(z.string(), z.string()).optional(),
});
export type ImagesPage = z.infer<typeof imagesPageSchema>;

export const imageDetailSchema = z.object({
  image: imageRecordSchema,
  /** The parents of the image, nearest first, up to the root of its edit chain. */
  chain: z.array(imageRecordSchema),
  /**
   * The lineage: the chain's root (its first generation) and every edit made from it at any
   * depth, branches too, with what they cost together (issue 22).
   */
  lineage: z.object({
    rootId: z.string(),
    images: z.number().int(),
    costMicros: z.number().int(),
  }),
});
export type ImageDetail = z.infer<typeof imageDetailSchema>;

export const patchImageBodySchema = z.strictObject({
  favourite: z.boolean().optional(),
  /** A reject hides the image from the gallery; false takes the reject back. */
  rejected: z.boolean().optional(),
});
export type PatchImageBody = z.infer<typeof patchImageBodySchema>;

export const imageResponseSchema = z.object({ image: imageRecordSchema });
export type ImageResponse = z.infer<typeof imageResponseSchema>;

// --- live events ----------------------------------------------------------------------------

/** GET /api/admin/events: `event: usage` with a UsageRecord, `event: image` with an ImageRecord. */
export const ADMIN_EVENTS = ['usage', 'image'] as const;

// --- the studio's runs ------------------------------------------------------------------------

/** GET /api/admin/studio/runs: the studio's own requests, newest first, with what each kept. */
export const studioRunsQuerySchema = z.strictObject({
  /** Only Generate's runs or only Edit's. */
  endpoint: z.enum(['generations', 'edits']).optional(),
  limit: queryInt(1, 100).optional(),
  offset: queryInt(0, Number.MAX_SAFE_INTEGER).optional(),
});
export type StudioRunsQuery = z.input<typeof studioRunsQuerySchema>;

export const STUDIO_RUN_PHASES = ['done', 'error', 'cancelled'] as const;

export const studioRunSchema = z.object({
  requestId: z.string(),
  createdAt: z.number(),
  /** `/images/generations` or `/images/edits`. */
  endpoint: z.string(),
  /** The kept images' prompt; null when none was kept (the usage log stores no prompt). */
  prompt: z.string().nullable(),
  model: z.string().nullable(),
  size: z.string().nullable(),
  quality: z.string().nullable(),
  n: z.number().int(),
  /** done (delivered), error (failed), cancelled (the person's own Cancel). */
  phase: z.enum(STUDIO_RUN_PHASES),
  status: z.number().int(),
  errorMessage: z.string().nullable(),
  costMicros: z.number().int(),
  /** What the gallery kept from it, rejected ones too (marked), in their order. */
  images: z.array(imageRecordSchema),
});
export type StudioRun = z.infer<typeof studioRunSchema>;

export const studioRunsResponseSchema = z.object({
  runs: z.array(studioRunSchema),
  /** The studio's runs matching the filter, over all pages. */
  total: z.number().int(),
});
export type StudioRunsResponse = z.infer<typeof studioRunsResponseSchema>;

// --- the studio's state, kept by the gateway ----------------------------------------------------

/** A state document's name: the studio's storage keys (`atelier.generate.v1`, ...). */
export const STUDIO_STATE_NAME = /^atelier\.[A-Za-z0-9._-]{1,80}$/;
/** At most this many documents, each at most this many bytes of JSON. */
export const MAX_STUDIO_STATE_ENTRIES = 100;
export const MAX_STUDIO_STATE_BYTES = 256 * 1024;

export const studioStateParamsSchema = z.object({
  name: z.string().regex(STUDIO_STATE_NAME, 'expected atelier.<name>'),
});

/** PUT /api/admin/studio/state/:name */
export const putStudioStateBodySchema = z.strictObject({ value: z.unknown() });

/** GET /api/admin/studio/state: every document by name. */
export const studioStateResponseSchema = z.object({
  entries: z.record(z.string(), z.unknown()),
});
export type StudioStateResponse = z.infer<typeof studioStateResponseSchema>;

// --- the studio's work files (Edit's images and mask), kept by the gateway -----------------------

/** A work file's key: the studio names its blobs (`<time>-<n>`). */
export const STUDIO_WORK_KEY = /^[A-Za-z0-9-]{1,64}$/;
/**
 * One file is at most an edit's input (50 MB) or a 16-megapixel mask (one byte a pixel); all of
 * them together at most what Edit keeps (256 MB of images) and its mask.
 */
export const MAX_STUDIO_WORK_FILE_BYTES = 64 * 1024 * 1024;
export const MAX_STUDIO_WORK_BYTES = 320 * 1024 * 1024;

export const studioWorkParamsSchema = z.object({
  key: z.string().regex(STUDIO_WORK_KEY, 'expected 1-64 of A-Za-z0-9-'),
});

/** GET /api/admin/studio/work: the files kept, by key, with their sizes. */
export const studioWorkListSchema = z.object({
  files: z.array(z.object({ key: z.string(), bytes: z.number().int() })),
});
export type StudioWorkList = z.infer<typeof studioWorkListSchema>;

// --- boards -----------------------------------------------------------------------------------

/** The most images one request adds to a board (a gallery selection). */
export const MAX_BOARD_ADD = 500;

const boardName = z.string().trim().min(1).max(100);

export const boardSchema = z.object({
  id,
  name: z.string(),
  createdAt: z.number(),
  /** Images on the board. */
  images: z.number().int(),
  /** The image added last (the board's cover), null for an empty board. */
  coverId: z.string().nullable(),
});
export type Board = z.infer<typeof boardSchema>;

export const boardsResponseSchema = z.object({ boards: z.array(boardSchema) });
export type BoardsResponse = z.infer<typeof boardsResponseSchema>;
export const boardResponseSchema = z.object({ board: boardSchema });
export type BoardResponse = z.infer<typeof boardResponseSchema>;

/** POST /api/admin/boards, PATCH /api/admin/boards/:id */
export const boardBodySchema = z.strictObject({ name: boardName });
export type BoardBody = z.infer<typeof boardBodySchema>;

/** POST /api/admin/boards/:id/images: gallery images to put on the board. */
export const addBoardImagesBodySchema = z.strictObject({
  imageIds: z.array(id).min(1).max(MAX_BOARD_ADD),
});
export type AddBoardImagesBody = z.infer<typeof addBoardImagesBodySchema>;

export const addBoardImagesResponseSchema = z.object({
  board: boardSchema,
  /** How many of them were not on it yet. */
  added: z.number().int(),
});
export type AddBoardImagesResponse = z.infer<typeof addBoardImagesResponseSchema>;
