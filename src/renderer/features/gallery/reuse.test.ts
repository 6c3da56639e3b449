import { describe, expect, it } from 'vitest';
import type { ImageRecord } from '../../../shared/admin';
import { DEFAULT_PARAMS } from '../generate/params';
import { reuseOf } from './reuse';

const IMAGE: ImageRecord = {
  id: 'img_1',
  requestId: 'req_1',
  index: 0,
  createdAt: 1_700_000_000_000,
  source: 'studio',
  endpoint: '/images/generations',
  prompt: 'A lighthouse at dusk',
  revisedPrompt: null,
  model: 'image-model-2',
  requestedSize: '1536x1024',
  deliveredSize: '1536x1024',
  quality: 'high',
  outputFormat: 'webp',
  outputCompression: 70,
  background: 'opaque',
  moderation: 'low',
  width: 1536,
  height: 1024,
  bytes: 123_456,
  inputTokens: 10,
  outputTokens: 4160,
  totalTokens: 4170,
  costMicros: 166_450,
  favourite: false,
  rejected: false,
  parentId: null,
  hasMask: false,
  apiKeyId: 'key_studio',
  fallbackStep: null,
};

describe('reuseOf', () => {
  it('fills the Generate form with the prompt and the parameters as requested', () => {
    const { draft, params } = reuseOf(IMAGE, { ...DEFAULT_PARAMS, n: 4, stream: false });
    expect(draft.text).toBe('A lighthouse at dusk');
    expect(params).toMatchObject({
      model: 'image-model-2',
      size: '1536x1024',
      quality: 'high',
      outputFormat: 'webp',
      compression: 70,
      background: 'opaque',
      moderation: 'low',
      n: 1,
      stream: false,
    });
  });

  it('uses a custom size for an uncommon one, and keeps what it cannot read', () => {
    const { params } = reuseOf(
      { ...IMAGE, requestedSize: '1200x800', quality: null, model: 'other-model' },
      DEFAULT_PARAMS,
    );
    expect(params).toMatchObject({
      size: 'custom',
      customWidth: '1200',
      customHeight: '800',
      quality: DEFAULT_PARAMS.quality,
      model: DEFAULT_PARAMS.model,
    });
  });
});
