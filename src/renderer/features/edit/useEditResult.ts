import { useEditStore } from '../../stores/edit';
import { useMaskStore } from '../../stores/mask';
import type { ImageSlot } from '../../stores/run';
import { slotFileName } from '../generate/SendParts';
import { EDIT_PREFIX } from './EditResults';
import { linkToGallery, toReference } from './references';

/**
 * "Edit this result": the result becomes the next step of the chain, carrying the mask when it
 * has the same size (a refinement of the same area), and the canvas is shown again.
 */
export function useEditResult(options: {
  prompt: string | null;
  requestId: string | null;
  onCanvas: () => void;
  onError: (message: string) => void;
}) {
  return async (slot: ImageSlot): Promise<void> => {
    if (!slot.blob) return;
    try {
      const reference = await toReference(slot.blob, slotFileName(slot.blob, slot, EDIT_PREFIX));
      useMaskStore.getState().carryTo(reference.id, reference.width, reference.height);
      useEditStore.getState().continueWith(reference, options.prompt);
      linkToGallery(reference.id, options.requestId, slot.index);
      // The next step starts on the canvas, at the top of the page where the tools are.
      options.onCanvas();
      window.scrollTo({ top: 0 });
    } catch (error) {
      options.onError(error instanceof Error ? error.message : String(error));
    }
  };
}
