import { z } from 'zod';
import type { Fault, FaultKind, FaultScript } from './types';

const FAULT_KINDS = [
  'usage_limit',
  'http_error',
  'reset',
  'slow',
  'refusal',
  'no_image',
  'downgrade',
  'no_usage',
  'absurd_usage',
] as const satisfies readonly FaultKind[];

/** Control API input: faults arrive from tests over HTTP, so they are checked where they arrive. */
export const faultSchema = z.object({
  kind: z.enum(FAULT_KINDS),
  resetsInSeconds: z.number().int().nonnegative().optional(),
  planType: z.string().optional(),
  status: z.number().int().min(100).max(599).optional(),
  code: z.string().optional(),
  param: z.string().optional(),
  message: z.string().optional(),
  delayMs: z.number().nonnegative().optional(),
  afterEvents: z.number().int().nonnegative().optional(),
  afterBytes: z.number().int().nonnegative().optional(),
  times: z.number().int().positive().optional(),
  match: z
    .object({
      path: z.string().optional(),
      accountId: z.string().optional(),
      promptIncludes: z.string().optional(),
    })
    .optional(),
});

export const faultListSchema = z.object({ faults: z.array(faultSchema) });

/** What a request looks like to fault matching. */
export interface FaultTarget {
  path: string;
  /** Image work (images, native, responses). Faults without `match.path` only hit these. */
  imageWork: boolean;
  accountId?: string;
  prompt?: string;
}

export class FaultScriptImpl implements FaultScript {
  private queue: Fault[] = [];

  get pending(): readonly Fault[] {
    return this.queue.map((fault) => ({ ...fault }));
  }

  add(...faults: Fault[]): void {
    for (const fault of faults) {
      this.queue.push({ ...faultSchema.parse(fault), times: fault.times ?? 1 } as Fault);
    }
  }

  clear(): void {
    this.queue = [];
  }

  /** Consumes one use of the first fault that matches, oldest first. */
  take(target: FaultTarget): Fault | undefined {
    const index = this.queue.findIndex((fault) => matches(fault, target));
    if (index < 0) return undefined;
    const fault = this.queue[index]!;
    const left = (fault.times ?? 1) - 1;
    if (left <= 0) this.queue.splice(index, 1);
    else fault.times = left;
    return { ...fault };
  }
}

function matches(fault: Fault, target: FaultTarget): boolean {
  const match = fault.match ?? {};
  if (match.path !== undefined ? !target.path.includes(match.path) : !target.imageWork)
    return false;
  if (match.accountId !== undefined && match.accountId !== target.accountId) return false;
  if (match.promptIncludes !== undefined && !(target.prompt ?? '').includes(match.promptIncludes)) {
    return false;
  }
  return true;
}
