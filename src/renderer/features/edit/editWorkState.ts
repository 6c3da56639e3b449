/**
 * The record of Edit's kept work: which files (by key, on the gateway) hold the references and
 * chain steps, with what each needs besides its bytes, and the mask's file. Pure: bounds and the
 * record's check, for tests.
 */
import { z } from 'zod';
import { STUDIO_WORK_KEY } from '../../../shared/admin';
import type { RestoredImage, RestoredStep } from '../../stores/edit';

export const KEPT_STEPS = 12;
export const KEPT_BYTES = 256 * 1024 * 1024;
/** The work file that holds this record (JSON). */
export const STATE_KEY = 'edit-state';

type KeptImage = Omit<RestoredImage, 'blob'> & { key: string };
type KeptStep = Omit<RestoredStep, 'blob'> & { key: string };
/** The first image's mask: one byte a pixel, in the file `key`. */
export interface KeptMask {
  width: number;
  height: number;
  key: string;
}

export interface KeptState {
  references: KeptImage[];
  chain: KeptStep[];
  mask: KeptMask | null;
}

const key = z.string().regex(STUDIO_WORK_KEY);
const side = z.number().int().min(1).max(16384);
const image = z.object({
  key,
  name: z.string().max(500),
  width: side,
  height: side,
  format: z.enum(['png', 'jpeg', 'webp']),
  galleryId: z.string().max(200).nullable(),
});
const keptStateSchema = z.object({
  references: z.array(image).max(64),
  chain: z
    .array(
      image.extend({
        prompt: z.string().max(100_000).nullable(),
        startsStack: z.boolean().optional(),
      }),
    )
    .max(64),
  mask: z.object({ width: side, height: side, key }).nullable(),
});

/** The record as read back (any JSON): null unless it has the shape written. */
export function parseKeptState(value: unknown): KeptState | null {
  const parsed = keptStateSchema.safeParse(value);
  if (!parsed.success) return null;
  const { references, chain, mask } = parsed.data;
  return {
    references,
    chain: chain.map(({ startsStack, ...step }) =>
      startsStack === undefined ? step : { ...step, startsStack },
    ),
    mask,
  };
}

/** The chain and references to keep, within the step and byte bounds. */
export function boundWork<R extends { blob: Blob }, S extends { blob: Blob }>(
  references: readonly R[],
  chain: readonly S[],
  maxSteps = KEPT_STEPS,
  maxBytes = KEPT_BYTES,
): { references: R[]; chain: S[] } {
  let steps = chain.length > maxSteps ? [chain[0]!, ...chain.slice(-(maxSteps - 1))] : [...chain];
  let refs = [...references];
  const size = () =>
    Array.from(new Set([...refs, ...steps].map((x) => x.blob))).reduce((sum, b) => sum + b.size, 0);
  while (size() > maxBytes && steps.length > 2) steps = [steps[0]!, ...steps.slice(2)];
  while (size() > maxBytes && refs.length > 1) refs = refs.slice(0, -1);
  if (size() > maxBytes) steps = [];
  return { references: refs, chain: steps };
}
