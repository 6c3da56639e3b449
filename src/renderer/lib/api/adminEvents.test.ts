import { describe, expect, it, vi } from 'vitest';
import type { ImageRecord } from '../../../shared/admin';
import { createAdminEvents } from './adminEvents';
import { watchSession } from './session';

/** An EventSource stand-in the test drives: open, drop, and events as the gateway sends them. */
class FakeEventSource extends EventTarget {
  closed = false;
  constructor(readonly url: string) {
    super();
  }
  close(): void {
    this.closed = true;
  }
  open(): void {
    this.dispatchEvent(new Event('open'));
  }
  drop(): void {
    this.dispatchEvent(new Event('error'));
  }
  send(type: string, data: unknown): void {
    this.dispatchEvent(new MessageEvent(type, { data: JSON.stringify(data) }));
  }
}

const IMAGE: ImageRecord = {
  id: 'img_1',
  requestId: 'req_1',
  index: 0,
  createdAt: 1,
  source: 'studio',
  endpoint: '/images/generations',
  prompt: 'p',
  revisedPrompt: null,
  model: 'gpt-image-2',
  requestedSize: '1024x1024',
  deliveredSize: '1024x1024',
  quality: 'low',
  outputFormat: 'png',
  outputCompression: null,
  background: null,
  moderation: null,
  width: 1024,
  height: 1024,
  bytes: 100,
  inputTokens: 10,
  outputTokens: 100,
  totalTokens: 110,
  costMicros: 1,
  favourite: false,
  rejected: false,
  parentId: null,
  hasMask: false,
  apiKeyId: null,
  fallbackStep: null,
};

describe('admin events', () => {
  it('shares one source among subscribers, opened by the first and closed by the last', async () => {
    const sources: FakeEventSource[] = [];
    const subscribe = createAdminEvents((url) => {
      const source = new FakeEventSource(url);
      sources.push(source);
      return source;
    });
    const first = { onImage: vi.fn(), onConnection: vi.fn() };
    const second = { onImage: vi.fn(), onConnection: vi.fn() };
    const stopFirst = subscribe(first);
    const source = sources[0]!;
    expect(source.url).toBe('/api/admin/events');
    source.open();
    expect(first.onConnection).toHaveBeenCalledWith(true);

    // A late subscriber is told the stream is live, after subscribe returned.
    const stopSecond = subscribe(second);
    expect(second.onConnection).not.toHaveBeenCalled();
    await Promise.resolve();
    expect(second.onConnection).toHaveBeenCalledWith(true);
    expect(sources).toHaveLength(1);

    source.send('image', IMAGE);
    expect(first.onImage).toHaveBeenCalledWith(IMAGE);
    expect(second.onImage).toHaveBeenCalledWith(IMAGE);

    stopFirst();
    expect(source.closed).toBe(false);
    source.send('image', { ...IMAGE, id: 'img_2' });
    expect(first.onImage).toHaveBeenCalledTimes(1);
    expect(second.onImage).toHaveBeenCalledTimes(2);
    stopSecond();
    expect(source.closed).toBe(true);

    // The next subscriber opens a new source.
    subscribe({})();
    expect(sources).toHaveLength(2);
  });

  it('drops events that do not match their schema, and doubts the session on a drop', () => {
    const sources: FakeEventSource[] = [];
    const subscribe = createAdminEvents((url) => {
      const source = new FakeEventSource(url);
      sources.push(source);
      return source;
    });
    const handlers = { onImage: vi.fn(), onUsage: vi.fn(), onConnection: vi.fn() };
    const doubt = vi.fn();
    const unwatch = watchSession(doubt);
    const stop = subscribe(handlers);
    sources[0]!.send('image', { id: 'only an id' });
    sources[0]!.send('usage', { requestId: 'req_1' });
    sources[0]!.dispatchEvent(new MessageEvent('image', { data: 'not json' }));
    expect(handlers.onImage).not.toHaveBeenCalled();
    expect(handlers.onUsage).not.toHaveBeenCalled();
    sources[0]!.drop();
    expect(handlers.onConnection).toHaveBeenCalledWith(false);
    expect(doubt).toHaveBeenCalledOnce();
    stop();
    unwatch();
  });
});
