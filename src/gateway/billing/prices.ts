import { DEFAULT_TEXT_MODELS, IMAGE_MODELS } from '../../shared/models';

/**
 * Prices of one model in integer micro-dollars per 1M tokens: $5 per 1M tokens is 5_000_000.
 * Integers keep sums exact; a micro-dollar per 1M tokens is the smallest price we can express.
 */
export interface Prices {
  textInput: number;
  imageInput: number;
  textOutput: number;
  imageOutput: number;
}

export interface PriceRow extends Prices {
  model: string;
  /** ms since the epoch. */
  updatedAt: number;
}

export const PRICE_FIELDS = ['textInput', 'imageInput', 'textOutput', 'imageOutput'] as const;
export type PriceField = (typeof PRICE_FIELDS)[number];

const MICROS_PER_DOLLAR = 1_000_000;

/** Current image model: third-party pages give $5 / $8 / $30 (upstream-protocols 3); text out $10. */
const IMAGE_MODEL_PRICES: Prices = {
  textInput: 5 * MICROS_PER_DOLLAR,
  imageInput: 8 * MICROS_PER_DOLLAR,
  textOutput: 10 * MICROS_PER_DOLLAR,
  imageOutput: 30 * MICROS_PER_DOLLAR,
};

/** Text models bill image tokens like text tokens. */
function textModelPrices(input: number, output: number): Prices {
  return { textInput: input, imageInput: input, textOutput: output, imageOutput: output };
}

const TEXT_MODEL_PRICES: Record<(typeof DEFAULT_TEXT_MODELS)[number], Prices> = {
  'agent-model-1': textModelPrices(1_250_000, 10_000_000),
  'agent-model-1-mini': textModelPrices(250_000, 2_000_000),
};

/**
 * The price table of a fresh install. The first migration seeds it; afterwards prices are user
 * settings and this table is never consulted again (a usage record keeps the cost computed when
 * it was written, so a later price edit never rewrites history).
 */
export const DEFAULT_PRICES: ReadonlyMap<string, Prices> = new Map<string, Prices>([
  ...IMAGE_MODELS.map((model) => [model, IMAGE_MODEL_PRICES] as const),
  ...DEFAULT_TEXT_MODELS.map((model) => [model, TEXT_MODEL_PRICES[model]] as const),
]);

/**
 * Parses a decimal dollar amount ("30", "1.25", "0.000001") into integer micro-dollars without
 * passing through a float, so "0.29" is exactly 290000 and never 289999. More than six decimals
 * cannot be stored and is an error rather than a silent rounding.
 */
export function dollarsToMicros(dollars: string): number {
  const match = /^(\d+)(?:\.(\d{1,6}))?$/.exec(dollars.trim());
  if (!match) {
    throw new RangeError(
      `"${dollars}" is not a dollar amount: use a non-negative decimal with at most 6 decimals, e.g. 1.25`,
    );
  }
  const whole = Number(match[1]);
  const fraction = Number((match[2] ?? '').padEnd(6, '0'));
  const micros = whole * MICROS_PER_DOLLAR + fraction;
  if (!Number.isSafeInteger(micros)) throw new RangeError(`"${dollars}" is too large`);
  return micros;
}

/** 30_000_000 -> "30.00", 1_250_000 -> "1.25", 1 -> "0.000001": cents always, more only if needed. */
export function formatMicros(micros: number): string {
  const sign = micros < 0 ? '-' : '';
  const abs = Math.abs(micros);
  const whole = Math.floor(abs / MICROS_PER_DOLLAR);
  const fraction = String(abs % MICROS_PER_DOLLAR)
    .padStart(6, '0')
    .replace(/0{1,4}$/, '');
  return `${sign}${whole}.${fraction}`;
}
