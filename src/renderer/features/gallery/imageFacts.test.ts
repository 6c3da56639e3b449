import { describe, expect, it } from 'vitest';
import type { ImageRecord } from '../../../shared/admin';
import { chainStepVerb, imageFacts, tileFacts } from './imageFacts';

const IMAGE: ImageRecord = {
  id: 'img_1',
  requestId: 'req_abc',
  index: 0,
  createdAt: new Date(2026, 3, 21, 9, 0, 0).getTime(),
  source: 'api',
  endpoint: '/images/generations',
  prompt: 'p',
  revisedPrompt: null,
  model: 'image-model-2',
  requestedSize: '3840x2160',
  deliveredSize: '1672x941',
  quality: 'high',
  outputFormat: 'jpeg',
  outputCompression: 80,
  background: null,
  moderation: null,
  width: 1672,
  height: 941,
  bytes: 2048,
  inputTokens: 12,
  outputTokens: 6240,
  totalTokens: 6252,
  costMicros: 250_000,
  favourite: false,
  rejected: false,
  parentId: null,
  hasMask: false,
  apiKeyId: 'k1',
  fallbackStep: null,
};

describe('imageFacts', () => {
  it('shows requested against delivered size, tokens, cost and the request id', () => {
    const facts = Object.fromEntries(
      imageFacts(IMAGE, (id) => (id === 'k1' ? 'my app' : null)).map((f) => [f.id, f]),
    );
    expect(facts.source?.value).toBe('API, key “my app”');
    expect(facts.requested?.value).toBe('3840x2160');
    expect(facts.delivered).toMatchObject({
      value: '1672x941',
      flag: 'differs from the requested size',
    });
    expect(facts.format?.value).toBe('JPEG, compression 80 · 2 KB');
    expect(facts.tokens?.value).toBe('12 in · 6,240 out · 6,252 total');
    expect(facts.cost?.value).toBe('$0.2500');
    expect(facts.request?.value).toBe('req_abc');
  });

  it('does not flag a size asked as auto', () => {
    const facts = imageFacts({ ...IMAGE, requestedSize: 'auto' }, () => null);
    expect(facts.find((f) => f.id === 'delivered')?.flag).toBeUndefined();
  });
});

describe('chainStepVerb', () => {
  it('says how each step of an edit chain was made, the first one included', () => {
    const generated = { endpoint: '/images/generations', hasMask: false };
    const edit = { endpoint: '/images/edits', hasMask: true };
    expect(chainStepVerb(generated, 0)).toBe('Generated');
    expect(chainStepVerb(edit, 0)).toBe('Edited with a mask from an image outside the gallery');
    expect(chainStepVerb(edit, 2)).toBe('Edited with a mask');
    expect(chainStepVerb({ ...edit, hasMask: false }, 1)).toBe('Edited');
  });
});

describe('tileFacts (under a gallery tile)', () => {
  it('says the size, the cost and the day, with the time in the full line', () => {
    expect(tileFacts(IMAGE)).toEqual({
      size: '1672x941',
      cost: '$0.2500',
      day: '2026-04-21',
      full: '1672x941 · $0.2500 · 2026-04-21 09:00:00',
    });
  });
});
