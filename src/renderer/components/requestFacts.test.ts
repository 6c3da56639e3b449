import { describe, expect, it } from 'vitest';
import type { UsageRecord } from '../../shared/admin';
import { requestFacts } from './requestFacts';

const record: UsageRecord = {
  requestId: 'req_0123456789abcdef01234567',
  createdAt: Date.UTC(2026, 3, 21, 12, 0, 0),
  endpoint: '/images/generations',
  model: 'image-model-2',
  size: '3840x2160',
  deliveredSize: '1536x1024',
  deliveredQuality: null,
  quality: 'high',
  outputFormat: 'png',
  n: 1,
  stream: true,
  status: 502,
  errorCode: 'upstream_size_mismatch',
  errorMessage: 'Upstream request failed: delivered 1536x1024 for 3840x2160',
  inputTokens: 20,
  inputTextTokens: 20,
  inputImageTokens: 0,
  outputTokens: 1_560,
  outputTextTokens: 0,
  outputImageTokens: 1_560,
  totalTokens: 1_580,
  images: 0,
  latencyMs: 12_400,
  upstreamAccountId: 'acc_1',
  upstreamAccountName: 'relay',
  groupName: 'default',
  user: 'user-42',
  apiKeyId: 'key_1',
  apiKeyName: 'my-app',
  costMicros: 46_900,
  priceModel: 'image-model-2',
  fallbackStep: null,
};

describe('requestFacts', () => {
  it('says why a request failed, what was asked and delivered, and every token', () => {
    const facts = Object.fromEntries(requestFacts(record).map((f) => [f.id, f.value]));
    expect(facts).toMatchObject({
      request: 'req_0123456789abcdef01234567',
      error: 'upstream_size_mismatch: Upstream request failed: delivered 1536x1024 for 3840x2160',
      latency: '12.4 s',
      asked: 'image-model-2 · 3840x2160 · high · png · n=1 · streamed',
      delivered: '0 images at 1536x1024',
      tokens: '20 in (20 text, 0 image) · 1,560 out (0 text, 1,560 image)',
      cost: '$0.0469 at image-model-2 prices',
      key: 'my-app · group default',
      account: 'relay',
      user: 'user-42',
    });
  });

  it('leaves out what a plain success does not have', () => {
    const ok = { ...record, status: 200, errorCode: null, errorMessage: null, user: null };
    const ids = requestFacts(ok).map((f) => f.id);
    expect(ids).not.toContain('error');
    expect(ids).not.toContain('user');
  });
});
