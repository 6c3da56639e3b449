import { z } from 'zod';

/**
 * The usage record of spec 2.2: one list of its fields, and the kind of each. Everything else
 * derives from it: the admin API's schema (below), the SQL row mapping (gateway/usage/row.ts), the
 * type the gateway writes. Adding a field is one line here and one migration.
 *
 * It lives in `shared` because the studio checks what the admin API sends with the same schema;
 * the gateway's `usage/` folder owns everything else about the record.
 */
const KINDS = {
  text: z.string(),
  textOrNull: z.string().nullable(),
  int: z.number().int(),
  bool: z.boolean(),
} as const;
export type UsageFieldKind = keyof typeof KINDS;

export const USAGE_FIELDS = {
  requestId: 'text',
  /** ms since the epoch, when the request started. */
  createdAt: 'int',
  endpoint: 'text',
  model: 'textOrNull',
  /** As requested. */
  size: 'textOrNull',
  /** As measured on the delivered image: differs from `size` after a downgrade or ladder step. */
  deliveredSize: 'textOrNull',
  /** As requested (`auto` when the caller named none). */
  quality: 'textOrNull',
  /** As the upstream made it: differs from `quality` after a ladder step (or `auto` resolved). */
  deliveredQuality: 'textOrNull',
  /** As requested; the format delivered when the request named none (a Responses image tool). */
  outputFormat: 'textOrNull',
  n: 'int',
  stream: 'bool',
  /** HTTP status answered (499: the client left first). */
  status: 'int',
  errorCode: 'textOrNull',
  errorMessage: 'textOrNull',
  inputTokens: 'int',
  inputTextTokens: 'int',
  inputImageTokens: 'int',
  outputTokens: 'int',
  outputTextTokens: 'int',
  outputImageTokens: 'int',
  totalTokens: 'int',
  /** Images delivered. */
  images: 'int',
  latencyMs: 'int',
  upstreamAccountId: 'textOrNull',
  upstreamAccountName: 'textOrNull',
  /**
   * The id(s) the upstream gave its answer(s) (its `x-request-id`): on a desktop whose upstream
   * is a team gateway, the team gateway's own request id, the key to its row. Comma-separated
   * when the request made several upstream calls; null when the upstream named none.
   */
  upstreamRequestId: 'textOrNull',
  groupName: 'textOrNull',
  user: 'textOrNull',
  apiKeyId: 'textOrNull',
  /** Integer micro-dollars, priced when written: later price edits never rewrite history. */
  costMicros: 'int',
  /** The price row(s) used, so a cost can be explained later. */
  priceModel: 'textOrNull',
  /** Which ladder step(s) delivered, e.g. '1' or '3,3'; null when the ladder was not used. */
  fallbackStep: 'textOrNull',
  /**
   * The tokens and cost are the gateway's estimate, not the upstream's figures: the upstream
   * reported no usage for what it delivered, reported more than the request could use, or the
   * gateway stopped while the request was upstream (docs/security.md, billing rules).
   */
  estimated: 'bool',
} as const satisfies Record<string, UsageFieldKind>;

export type UsageField = keyof typeof USAGE_FIELDS;

type StoredShape = { [F in UsageField]: (typeof KINDS)[(typeof USAGE_FIELDS)[F]] };

/** A usage record as stored: every field of the list, none optional, so none is forgotten. */
export const storedUsageSchema = z.object(
  Object.fromEntries(
    Object.entries(USAGE_FIELDS).map(([field, kind]) => [field, KINDS[kind]]),
  ) as StoredShape,
);
export type StoredUsage = z.infer<typeof storedUsageSchema>;

/** A usage record as the admin API sends it (GET /api/admin/usage, the `usage` event). */
export const usageRecordSchema = storedUsageSchema.extend({
  /** The key's name (deleted keys keep theirs); null for requests without a key. */
  apiKeyName: z.string().nullable(),
});
export type UsageRecord = z.infer<typeof usageRecordSchema>;

/** The error code of a request the gateway never finished: it stopped (a crash, kill -9) first. */
export const INTERRUPTED = 'gateway_interrupted';

/** The status of a request whose caller closed the connection before the reply was done. */
export const CLIENT_CLOSED = 499;

/**
 * A request whose caller left (499) after its image was made: billed and kept in the gallery, it
 * did its work, so it counts as delivered, not as a failure (the usage list, its totals and the
 * `status` filter agree; the gateway's SQL form is `DELIVERED_DESPITE_LEAVING` in usage/).
 */
export function deliveredDespiteLeaving(
  r: Pick<UsageRecord, 'status' | 'images' | 'errorCode'>,
): boolean {
  return r.status === CLIENT_CLOSED && r.images > 0 && r.errorCode !== INTERRUPTED;
}

/** The error code of a request its caller cancelled (the studio's Cancel, or a caller that left). */
export const CLIENT_CANCELLED = 'client_cancelled';

/**
 * A request its caller cancelled before any image was made: the person's own choice, not a
 * failure (issue 22). The usage list, its totals and the `status` filter count it apart; the
 * gateway's SQL form is `CANCELLED` in usage/.
 */
export function cancelledByCaller(
  r: Pick<UsageRecord, 'status' | 'images' | 'errorCode'>,
): boolean {
  return r.status === CLIENT_CLOSED && r.errorCode === CLIENT_CANCELLED && r.images === 0;
}
