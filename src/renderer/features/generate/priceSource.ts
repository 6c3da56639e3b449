import { formatUsd, type PriceTable } from '../../../shared/costEstimate';
import type { PricesState } from '../../stores/prices';

const perMillion = (micros: number) => formatUsd(micros).replace(/\.?0+$/, '');

/** Where an estimate's prices came from, with the prices, for the estimate's details. */
export function priceSource(
  phase: PricesState['phase'],
  prices: Record<string, PriceTable>,
  model: string,
): string {
  const table = prices[model];
  if (phase === 'ready' && table) {
    return `your price settings for ${model}: ${perMillion(table.textInput)} text in, ${perMillion(table.imageInput)} image in, ${perMillion(table.imageOutput)} image out per 1M tokens`;
  }
  return 'the documented defaults: $5 text in, $8 image in, $30 image out per 1M tokens';
}
