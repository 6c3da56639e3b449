import { useEffect, useEffectEvent, useRef } from 'react';
import { useEditStore, type ReferenceImage } from '../../../stores/edit';
import { useMaskStore } from '../../../stores/mask';
import { toReference } from '../references';
import { expandImage } from './expandImage';
import { outpaintCoverage, placeOriginal } from './outpaintGeometry';
import type { OutpaintPlan } from './OutpaintPanel';

/**
 * Outpainting in one click: the bigger canvas becomes the next step of the chain with its new
 * area as the mask, and it is sent as soon as it is the masked first image.
 */
export function useOutpaint(options: {
  source: ReferenceImage | null;
  /** A run is going or the request would be refused (no prompt): nothing is expanded. */
  blocked: boolean;
  /** Called first, e.g. to show why a blocked request cannot go. */
  beforeExpand: () => void;
  send: () => void;
  onError: (message: string) => void;
}) {
  const { source, blocked, beforeExpand, send, onError } = options;
  const maskSourceId = useMaskStore((s) => s.sourceId);
  const sendWhenReady = useRef<string | null>(null);

  const sendExpanded = useEffectEvent((id: string | undefined) => {
    if (!id || sendWhenReady.current !== id || maskSourceId !== id) return;
    sendWhenReady.current = null;
    send();
  });
  useEffect(() => sendExpanded(source?.id), [source?.id, maskSourceId]);

  return async ({ canvas, anchor }: OutpaintPlan) => {
    if (!source) return;
    beforeExpand();
    if (blocked) return;
    try {
      const placed = placeOriginal(source, canvas, anchor);
      const blob = await expandImage(source.blob, canvas, placed);
      const reference = await toReference(blob, `${source.name} (expanded)`);
      useMaskStore
        .getState()
        .seed(reference.id, canvas.width, canvas.height, outpaintCoverage(canvas, placed));
      const edit = useEditStore.getState();
      edit.continueWith(reference, `Canvas expanded to ${canvas.width}x${canvas.height}`);
      edit.setSendMask(true);
      // The result takes the canvas's size: "auto" keeps the first image's.
      if (edit.params.size !== 'auto') edit.setParams({ size: 'auto' });
      sendWhenReady.current = reference.id;
    } catch (error) {
      onError(error instanceof Error ? error.message : String(error));
    }
  };
}
