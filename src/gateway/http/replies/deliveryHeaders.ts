import type { Response } from 'express';
import { formatSize } from '../../../shared/sizeRules';
import type { DeliveredImage } from '../../dispatch/runImages';

/**
 * Lenient mode passes on an image that differs from the request; these headers say what was
 * really delivered, and which ladder step made it, so nothing is silently different.
 */
export function setDeliveryHeaders(
  res: Response,
  images: DeliveredImage[],
  requestedSize: string,
): void {
  const sizes = [...new Set(images.map((i) => formatSize(i.delivered)))];
  if (images.some((i) => i.mismatch)) {
    res.setHeader('x-atelier-delivered-size', sizes.join(','));
    res.setHeader('x-atelier-requested-size', requestedSize);
  }
  const steps = images.map((i) => i.fallbackStep).filter((s) => s !== null);
  if (steps.length > 0) res.setHeader('x-atelier-fallback-step', steps.join(','));
}
