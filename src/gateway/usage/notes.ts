import { emptyUsage, type TokenUsage } from '../../shared/imageParams';
import type { StoredUsage } from '../../shared/usageRecord';
import { admit, type Admission, type AdmissionRequest } from '../billing/admission';
import type { Prices } from '../billing/prices';
import type { PricedUsage } from '../billing/settle';

export type { PricedUsage } from '../billing/settle';

/** How the request ended, as the HTTP layer saw it. */
export interface FinalStatus {
  status: number;
  errorCode: string | null;
  errorMessage: string | null;
  latencyMs: number;
}

/** An error the reply carried after its 200 headers went out (an SSE error, a broken stream). */
export interface StreamFailure {
  status: number;
  code: string | null;
  message: string;
}

export interface UpstreamAccount {
  id: string;
  name: string;
}

/** What the request asked for (spec 2.2), as far as it is known. */
export type Requested = Partial<
  Pick<StoredUsage, 'model' | 'size' | 'quality' | 'outputFormat' | 'n' | 'stream' | 'user'>
>;

/** What the upstream made, failed or not: the tokens it billed, the images, where they came from. */
export interface Delivered {
  parts: PricedUsage[];
  images: number;
  /** The accounts that did the work; an empty list clears what dispatch noted. */
  accounts?: UpstreamAccount[];
  deliveredSize?: string | null;
  deliveredQuality?: string | null;
  fallbackStep?: string | null;
  /** A Responses call's final response object arrived. */
  responded?: boolean;
}

/** Told each time the request goes upstream (the writer keeps a pending row from it). */
export type DispatchListener = (notes: UsageNotes) => void;

/**
 * What a request has learned about itself, told in named notes by the layers it passes through
 * (the HTTP layer, authentication, dispatch, the reply) and read once, when it is over, as its
 * usage record. Nothing else holds the record in progress.
 */
export class UsageNotes {
  private asked: Required<Requested> = {
    model: null,
    size: null,
    quality: null,
    outputFormat: null,
    n: 1,
    stream: false,
    user: null,
  };
  private key: { id: string; group: string } | null = null;
  private accounts: UpstreamAccount[] = [];
  private parts: PricedUsage[] = [];
  private images = 0;
  private deliveredSize: string | null = null;
  private deliveredQuality: string | null = null;
  private fallbackStep: string | null = null;
  /** The ids the upstream gave its answers (`x-request-id`), each once, in order. */
  private upstreamRequestIds = new Set<string>();
  private streamFailure: StreamFailure | null = null;
  private calls = 0;

  constructor(
    readonly requestId: string,
    readonly startedAt: number,
    readonly endpoint: string,
    private readonly onDispatch: DispatchListener = () => undefined,
    private readonly priceFor: (model: string) => Prices | null = () => null,
  ) {}

  private pricedAt: Admission | null = null;
  private responded = false;

  /**
   * Prices the request before it is admitted, with the live price table, and keeps that table
   * for its row. Priced once: a second call returns the first admission.
   */
  admit(request: AdmissionRequest): Admission {
    this.pricedAt ??= admit(request, this.priceFor);
    return this.pricedAt;
  }

  /** The admission's estimate and prices; null for a request refused before it was priced. */
  get admission(): Admission | null {
    return this.pricedAt;
  }

  /** A response object arrived from the upstream (its text was made, usage reported or not). */
  get hasResponse(): boolean {
    return this.responded;
  }

  /** What the caller asked for; may be told twice (the raw body first, then the validated one). */
  requested(fields: Requested): void {
    for (const [field, value] of Object.entries(fields) as Array<[keyof Requested, unknown]>) {
      if (value !== undefined) (this.asked as Record<string, unknown>)[field] = value;
    }
  }

  /** The service key (or the studio's built-in key) the request runs under. */
  authenticated(key: { id: string; group: string }): void {
    this.key = { id: key.id, group: key.group };
  }

  /** One upstream call is about to start on this account. */
  dispatched(account: UpstreamAccount): void {
    this.calls += 1;
    // The account at work now; the final note of a run names all of them.
    this.accounts = [{ id: account.id, name: account.name }];
    this.onDispatch(this);
  }

  /** Tokens and images the upstream made, whether the reply succeeded or not. */
  delivered(outcome: Delivered): void {
    if (outcome.responded) this.responded = true;
    this.parts = outcome.parts;
    this.images = outcome.images;
    if (outcome.accounts) this.accounts = unique(outcome.accounts);
    if (outcome.deliveredSize !== undefined) this.deliveredSize = outcome.deliveredSize;
    if (outcome.deliveredQuality !== undefined) this.deliveredQuality = outcome.deliveredQuality;
    if (outcome.fallbackStep !== undefined) this.fallbackStep = outcome.fallbackStep;
  }

  /**
   * An upstream call was answered under this id (the upstream's `x-request-id`): on a desktop
   * whose upstream is a team gateway, the key to the team gateway's own row.
   */
  answered(upstreamRequestId: string | null | undefined): void {
    if (upstreamRequestId) this.upstreamRequestIds.add(upstreamRequestId);
  }

  /** The reply failed after its headers went out: its status stays 200, the record must not. */
  failed(failure: StreamFailure): void {
    this.streamFailure = failure;
  }

  /** Keeps an earlier failure (the first cause is the one worth recording). */
  failedUnlessNoted(failure: StreamFailure): void {
    this.streamFailure ??= failure;
  }

  get isAuthenticated(): boolean {
    return this.key !== null;
  }
  get apiKeyId(): string | null {
    return this.key?.id ?? null;
  }
  get attempts(): number {
    return this.calls;
  }
  get pricedParts(): readonly PricedUsage[] {
    return this.parts;
  }
  get streamError(): StreamFailure | null {
    return this.streamFailure;
  }

  /** What the upstream delivered, for billing (billing/settle.ts). */
  get work(): { parts: readonly PricedUsage[]; images: number; responded: boolean } {
    return { parts: this.parts, images: this.images, responded: this.responded };
  }

  /**
   * The usage record these notes make, ended with `final` and billed as `billed` says (its parts,
   * when given, are the tokens billed in place of the reported ones).
   */
  record(
    final: FinalStatus,
    billed: { costMicros: number; estimated: boolean; parts?: readonly PricedUsage[] },
  ): StoredUsage {
    const parts = billed.parts ?? this.parts;
    const total = totalUsage(parts);
    const accountIds = this.accounts.map((a) => a.id);
    const accountNames = [...new Set(this.accounts.map((a) => a.name))];
    return {
      requestId: this.requestId,
      createdAt: this.startedAt,
      endpoint: this.endpoint,
      ...this.asked,
      deliveredSize: this.deliveredSize,
      deliveredQuality: this.deliveredQuality,
      status: final.status,
      errorCode: final.errorCode,
      errorMessage: final.errorMessage,
      inputTokens: total.input_tokens,
      inputTextTokens: total.input_tokens_details.text_tokens,
      inputImageTokens: total.input_tokens_details.image_tokens,
      outputTokens: total.output_tokens,
      outputTextTokens: total.output_tokens_details.text_tokens,
      outputImageTokens: total.output_tokens_details.image_tokens,
      totalTokens: total.total_tokens,
      images: this.images,
      latencyMs: final.latencyMs,
      upstreamAccountId: accountIds.length ? accountIds.join(',') : null,
      upstreamAccountName: accountNames.length ? accountNames.join(',') : null,
      upstreamRequestId: this.upstreamRequestIds.size
        ? [...this.upstreamRequestIds].join(',')
        : null,
      groupName: this.key?.group ?? null,
      user: this.asked.user,
      apiKeyId: this.key?.id ?? null,
      costMicros: billed.costMicros,
      priceModel: parts.map((p) => p.model).join(',') || null,
      fallbackStep: this.fallbackStep,
      estimated: billed.estimated,
    };
  }
}

function unique(accounts: UpstreamAccount[]): UpstreamAccount[] {
  const byId = new Map(accounts.map((a) => [a.id, { id: a.id, name: a.name }] as const));
  return [...byId.values()];
}

export function totalUsage(parts: readonly PricedUsage[]): TokenUsage {
  const total = emptyUsage();
  for (const { usage } of parts) {
    total.input_tokens += usage.input_tokens;
    total.input_tokens_details.text_tokens += usage.input_tokens_details.text_tokens;
    total.input_tokens_details.image_tokens += usage.input_tokens_details.image_tokens;
    total.output_tokens += usage.output_tokens;
    total.output_tokens_details.text_tokens += usage.output_tokens_details.text_tokens;
    total.output_tokens_details.image_tokens += usage.output_tokens_details.image_tokens;
    total.total_tokens += usage.total_tokens;
  }
  return total;
}
