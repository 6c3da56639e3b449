/**
 * Edit layers: each result of the chain lies over the step it was made from. A layer can be
 * hidden or blended with an opacity; flattening composes what shows into one image.
 */
import { saveBlob } from '../../lib/files';
import type { ChainStep, LayerLook } from '../../stores/edit';

const PLAIN: LayerLook = { hidden: false, opacity: 1 };

export const lookOf = (looks: Record<string, LayerLook>, id: string): LayerLook =>
  Object.hasOwn(looks, id) ? looks[id]! : PLAIN;

/**
 * The steps that stack at the working image's size: the chain's latest steps of that size,
 * oldest (the base) first. A step of another size (before an outpaint) ends the stack, and a
 * flattened step is its base. Fewer than two steps: no layers.
 */
export function layerStack(
  chain: readonly ChainStep[],
  size: { width: number; height: number },
): ChainStep[] {
  let from = chain.length;
  while (from > 0) {
    const step = chain[from - 1]!;
    if (step.width !== size.width || step.height !== size.height) break;
    from -= 1;
    if (step.startsStack) break;
  }
  const stack = chain.slice(from);
  return stack.length > 1 ? stack : [];
}

/** Whether the stack shows just its top image (every layer visible and opaque). */
export function showsTopOnly(
  stack: readonly ChainStep[],
  looks: Record<string, LayerLook>,
): boolean {
  const top = stack.at(-1);
  return !top || (!lookOf(looks, top.id).hidden && lookOf(looks, top.id).opacity >= 1);
}

/** The stack as it shows, as one PNG: the base, then each visible layer at its opacity. */
export async function flattenLayers(
  stack: readonly ChainStep[],
  looks: Record<string, LayerLook>,
): Promise<Blob> {
  const base = stack[0]!;
  const canvas = new OffscreenCanvas(base.width, base.height);
  const ctx = canvas.getContext('2d')!;
  for (const [i, step] of stack.entries()) {
    const look = lookOf(looks, step.id);
    if (i > 0 && (look.hidden || look.opacity <= 0)) continue;
    const bitmap = await createImageBitmap(step.blob);
    ctx.globalAlpha = i === 0 ? 1 : look.opacity;
    ctx.drawImage(bitmap, 0, 0, base.width, base.height);
    bitmap.close();
  }
  return canvas.convertToBlob({ type: 'image/png' });
}

/** Saves the flattened stack as atelier-flattened-<time>.png. */
export async function exportFlattened(
  stack: readonly ChainStep[],
  looks: Record<string, LayerLook>,
): Promise<boolean> {
  return saveBlob(await flattenLayers(stack, looks), `atelier-flattened-${Date.now()}.png`);
}
