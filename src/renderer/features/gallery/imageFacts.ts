import type { ImageRecord } from '../../../shared/admin';
import { formatBytes, formatCount, formatDateTime, formatDay, formatUsd } from '../../lib/format';

export interface Fact {
  id: string;
  label: string;
  value: string;
  /** Worth a second look (delivered differs from requested). */
  flag?: string;
}

/** The facts of an image in the order the detail panel and the comparison show them. */
export function imageFacts(
  image: ImageRecord,
  keyName: (id: string | null) => string | null,
): Fact[] {
  const delivered = image.deliveredSize;
  const differs = image.requestedSize !== 'auto' && delivered !== image.requestedSize;
  const facts: Fact[] = [
    { id: 'created', label: 'Created', value: formatDateTime(image.createdAt) },
    {
      id: 'source',
      label: 'Made by',
      value:
        image.source === 'studio'
          ? 'The studio'
          : `API${keyName(image.apiKeyId) ? `, key “${keyName(image.apiKeyId)}”` : ''}`,
    },
    { id: 'model', label: 'Model', value: image.model },
    {
      id: 'endpoint',
      label: 'Endpoint',
      value: image.endpoint.endsWith('edits') ? 'Edit' : 'Generation',
    },
    { id: 'requested', label: 'Requested size', value: image.requestedSize },
    {
      id: 'delivered',
      label: 'Delivered size',
      value: delivered,
      ...(differs ? { flag: 'differs from the requested size' } : {}),
    },
    { id: 'quality', label: 'Quality', value: image.quality ?? 'auto' },
    {
      id: 'format',
      label: 'Format',
      value: `${image.outputFormat.toUpperCase()}${
        image.outputCompression !== null && image.outputFormat !== 'png'
          ? `, compression ${image.outputCompression}`
          : ''
      } · ${formatBytes(image.bytes)}`,
    },
    { id: 'background', label: 'Background', value: image.background ?? 'auto' },
    { id: 'moderation', label: 'Moderation', value: image.moderation ?? 'auto' },
    {
      id: 'tokens',
      label: 'Tokens',
      value: `${formatCount(image.inputTokens)} in · ${formatCount(image.outputTokens)} out · ${formatCount(image.totalTokens)} total`,
    },
    { id: 'cost', label: 'Cost', value: formatUsd(image.costMicros) },
    { id: 'request', label: 'Request id', value: image.requestId },
  ];
  if (image.fallbackStep !== null) {
    facts.push({
      id: 'fallback',
      label: 'Fallback step',
      value: String(image.fallbackStep),
      flag: 'delivered by the fallback ladder',
    });
  }
  return facts;
}

/**
 * How a step of the chain came to be. The first step was generated, or edited from an image
 * that is not in the gallery (a file from disk): its prompt belongs to the chain all the same.
 */
export function chainStepVerb(step: Pick<ImageRecord, 'endpoint' | 'hasMask'>, index: number) {
  const mask = step.hasMask ? ' with a mask' : '';
  if (!step.endpoint.endsWith('/edits')) return 'Generated';
  return index === 0 ? `Edited${mask} from an image outside the gallery` : `Edited${mask}`;
}

/**
 * What a gallery tile says under its prompt: its size, what it cost and the day it was made
 * (the time is in `full`, the tile's tooltip), short enough for the narrowest tile.
 */
export function tileFacts(
  image: Pick<ImageRecord, 'width' | 'height' | 'costMicros' | 'createdAt'>,
) {
  const size = `${image.width}x${image.height}`;
  const cost = formatUsd(image.costMicros);
  return {
    size,
    cost,
    day: formatDay(image.createdAt),
    full: `${size} · ${cost} · ${formatDateTime(image.createdAt)}`,
  };
}
