import { describe, expect, it } from 'vitest';
import type { UsageRecord } from '../../shared/admin';
import { requestFacts, statusView } from './requestFacts';

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
  upstreamRequestId: 'req_team_0123',
  groupName: 'default',
  user: 'user-42',
  apiKeyId: 'key_1',
  apiKeyName: 'my-app',
  costMicros: 46_900,
  priceModel: 'image-model-2',
  fallbackStep: null,
  estimated: false,
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
      upstreamRequest: 'req_team_0123',
      user: 'user-42',
    });
  });

  it('leaves out what a plain success does not have', () => {
    const ok = {
      ...record,
      status: 200,
      errorCode: null,
      errorMessage: null,
      user: null,
      upstreamRequestId: null,
    };
    const ids = requestFacts(ok).map((f) => f.id);
    expect(ids).not.toContain('error');
    expect(ids).not.toContain('user');
    expect(ids).not.toContain('upstreamRequest');
  });

  it('shows the prompt the gallery kept it with, when the list names one', () => {
    const ok = { ...record, status: 200, errorCode: null, errorMessage: null };
    const facts = requestFacts({ ...ok, keptImageIds: ['img_1'], prompt: 'A kite\nover the sea' });
    expect(facts.find((f) => f.id === 'prompt')?.value).toBe('A kite\nover the sea');
    expect(requestFacts({ ...ok, keptImageIds: [], prompt: null }).map((f) => f.id)).not.toContain(
      'prompt',
    );
  });
});

describe('statusView', () => {
  const leftEarly = {
    ...record,
    status: 499,
    errorCode: 'client_cancelled',
    errorMessage: 'the client closed the connection before the response was complete',
    images: 1,
  };

  it('reads a caller that left after its image was made as delivered, the 499 kept on hover and in the details', () => {
    const view = statusView({ ...leftEarly, keptImageIds: ['img_1'], prompt: 'x' });
    expect(view).toMatchObject({ text: 'delivered', tone: 'ok', note: 'client left early' });
    expect(view.title).toContain('HTTP 499 client_cancelled');
    expect(view.title).toContain('kept in the Gallery');
    const facts = requestFacts(leftEarly);
    expect(facts.map((f) => f.id)).not.toContain('error');
    expect(facts.find((f) => f.id === 'status')?.value).toMatch(
      /^499 client_cancelled: .*made and billed$/,
    );
  });

  it('reads a cancel without an image as cancelled, an interruption and an error as failures', () => {
    expect(statusView({ ...leftEarly, images: 0 })).toMatchObject({
      text: 'cancelled',
      tone: 'off',
      title: expect.stringContaining('499 client_cancelled') as unknown,
    });
    expect(statusView({ ...leftEarly, errorCode: 'gateway_interrupted' })).toMatchObject({
      text: 'interrupted',
      tone: 'error',
    });
    expect(statusView(record)).toMatchObject({
      text: '502',
      tone: 'error',
      note: 'upstream_size_mismatch',
    });
    expect(statusView({ ...record, status: 200, errorCode: null, errorMessage: null })).toEqual({
      text: '200',
      tone: 'ok',
      note: null,
      title: null,
    });
  });
});
