import { useEffect } from 'react';
import { estimateImageRequest } from '../../../shared/costEstimate';
import { priceFor, usePricesStore } from '../../stores/prices';
import { checkParams, estimateInput, type ImageParams } from './params';
import { priceSource } from './priceSource';

/**
 * What Generate and Edit both work out before sending: the parameters' check, the model's price
 * (loaded once), and the estimate of what the request will cost.
 */
export function useImagePricing(
  params: ImageParams,
  prompt: string,
  inputImages?: ReadonlyArray<{ width: number; height: number }>,
) {
  const pricePhase = usePricesStore((s) => s.phase);
  const prices = usePricesStore((s) => s.prices);
  const loadPrices = usePricesStore((s) => s.load);
  useEffect(() => void loadPrices(), [loadPrices]);

  const check = checkParams(params);
  const price = priceFor(prices, params.model);
  const estimate = check.ok
    ? estimateImageRequest(estimateInput(params, check, prompt, inputImages), price)
    : null;
  return {
    check,
    price,
    estimate,
    /** The prices have loaded (or fell back to the documented defaults). */
    ready: pricePhase === 'ready' || pricePhase === 'defaults',
    priceSource: priceSource(pricePhase, prices, params.model),
  };
}
