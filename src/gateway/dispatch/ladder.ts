import sharp from 'sharp';
import { checkSize } from '../../shared/sizeRules';
import type { Quality } from '../../shared/imageParams';
import { decodePieces, type Base64Pieces } from '../bytes/base64Pieces';
import { UpstreamError } from '../core/upstreamError';
import type { CallAllowance } from './dispatchCall';
import { upstreamTimeoutFor, type TimeoutSettings } from './sizeClass';

/** Above 2560x1440, outputs are experimental high-pixel work (spec 8.1): the ladder applies. */
const LADDER_MIN_PIXELS = 2560 * 1440;

export interface LadderStep {
  /** 1: as asked; 2: medium quality at the asked size; 3: a 1.5 MP image at medium, upscaled here. */
  step: 1 | 2 | 3;
  size: string;
  quality: Quality | undefined;
  upscaleTo: { width: number; height: number } | null;
}

/**
 * The fallback sequence of spec 7.3 for a large request: 3840x2160 high, then 3840x2160 medium,
 * then 1536x1024 medium upscaled locally. Portrait and square requests use the matching
 * 1.5 MP base (1024x1536, 1024x1024). Steps that would repeat an earlier one are skipped.
 */
export function ladderFor(size: string, quality: Quality | undefined): LadderStep[] {
  const check = checkSize(size);
  if (!check.ok || check.auto || check.width * check.height <= LADDER_MIN_PIXELS) {
    return [{ step: 1, size, quality, upscaleTo: null }];
  }
  const steps: LadderStep[] = [{ step: 1, size, quality, upscaleTo: null }];
  if (quality === 'high' || quality === 'auto' || quality === undefined)
    steps.push({ step: 2, size, quality: 'medium', upscaleTo: null });
  const base =
    check.width > check.height
      ? '1536x1024'
      : check.width < check.height
        ? '1024x1536'
        : '1024x1024';
  steps.push({
    step: 3,
    size: base,
    quality: 'medium',
    upscaleTo: { width: check.width, height: check.height },
  });
  return steps;
}

/**
 * Upscales with Lanczos to exactly the asked size and re-encodes in the asked format. This is the
 * one place the gateway decodes an image: the upscale cannot be done on base64.
 */
export async function upscale(
  b64: Base64Pieces,
  to: { width: number; height: number },
  format: 'png' | 'jpeg' | 'webp',
  compression: number | undefined,
): Promise<Base64Pieces> {
  const image = sharp(decodePieces(b64)).resize(to.width, to.height, {
    kernel: sharp.kernel.lanczos3,
    fit: 'fill',
  });
  const quality = compression ?? 90;
  const encoded =
    format === 'png'
      ? await image.png().toBuffer()
      : format === 'jpeg'
        ? await image.jpeg({ quality }).toBuffer()
        : await image.webp({ quality }).toBuffer();
  return [Buffer.from(encoded.toString('base64'), 'latin1')];
}

/**
 * The ladder's one budget for an image, over all its steps (docs/dispatch.md):
 * - time: the whole ladder ends within the large-image timeout (300 s by default, spec 8.2's
 *   client timeout for 4K), so a client that follows the spec hears the ladder's answer; the last
 *   step's own timeout (or half the budget, if less) is kept for it, so a slow first step cannot
 *   starve it;
 * - calls: at most `maxCalls` upstream calls, one kept for each later step; within a step an
 *   outage (network, 502/503/504) is retried once, on another account where there is one.
 */
export const LADDER = {
  maxCalls: 6,
  retriesPerStep: 1,
  /** A step with less time than this left is skipped: it could not finish. */
  minCallMs: 1_000,
} as const;

export interface LadderBudget {
  deadline: number;
  totalMs: number;
  /** Kept from the earlier steps for the last one. */
  lastStepReserveMs: number;
  calls: CallAllowance;
}

export function ladderBudget(timeouts: TimeoutSettings, now: number): LadderBudget {
  return {
    deadline: now + timeouts.largeMs,
    totalMs: timeouts.largeMs,
    lastStepReserveMs: Math.min(timeouts.normalMs, Math.floor(timeouts.largeMs / 2)),
    calls: { left: LADDER.maxCalls, keep: 0 },
  };
}

/** What one step may use of the budget. */
export interface StepPlan {
  budget: LadderBudget;
  calls: CallAllowance;
  /** The timeout of a call made now: the step's own, cut to what the budget leaves it. */
  timeoutMs: () => number;
  /** Accounts to try last (they failed the previous step). */
  avoid: ReadonlySet<string>;
  /** Accounts that failed this step, filled as it runs (the usage record names them). */
  failedOn: Map<string, { id: string; name: string }>;
}

/**
 * The plan for a step with `later` steps after it, or null when the budget cannot run it (no time
 * left once the later steps' share is kept, or no call left).
 */
export function stepPlan(
  budget: LadderBudget,
  step: LadderStep,
  later: number,
  timeouts: TimeoutSettings,
  now: () => number,
  avoid: ReadonlySet<string>,
): StepPlan | null {
  const reserve = later > 0 ? budget.lastStepReserveMs : 0;
  const timeoutMs = () =>
    Math.min(upstreamTimeoutFor(step.size, timeouts), budget.deadline - reserve - now());
  if (timeoutMs() < LADDER.minCallMs || budget.calls.left <= later) return null;
  budget.calls.keep = later;
  return { budget, calls: budget.calls, timeoutMs, avoid, failedOn: new Map() };
}

/** The failure when the budget ran out before any step could answer. */
export function ladderSpent(budget: LadderBudget): UpstreamError {
  return new UpstreamError({
    kind: 'timeout',
    message: `the fallback ladder's budget (${Math.round(budget.totalMs / 1000)} s, ${LADDER.maxCalls} upstream calls) is spent`,
  });
}
