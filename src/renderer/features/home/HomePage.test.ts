import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import type { StudioRun } from '../../../shared/admin';
import type { GatewayStatus } from '../../lib/api/status';
import { HomeView, startOfToday, type HomeData } from './HomePage';

const SIMULATED: GatewayStatus = {
  name: 'Atelier',
  version: '0.1.0',
  upstream: { kind: 'simulator', label: 'Offline simulator' },
  address: 'http://127.0.0.1:8787',
};

const RUN: StudioRun = {
  requestId: 'req_1',
  createdAt: Date.UTC(2026, 10, 26, 9, 30),
  endpoint: '/images/generations',
  prompt: 'A heron at dawn',
  model: 'image-model-2',
  size: '1024x1024',
  quality: 'low',
  n: 1,
  phase: 'done',
  status: 200,
  errorMessage: null,
  costMicros: 11_000,
  images: [],
};

const HOME: HomeData = {
  recent: [],
  lastRun: RUN,
  today: { requests: 3, images: 4, costMicros: 42_000 },
};

const render = (status: GatewayStatus, home: HomeData | null = HOME, editing = false) =>
  renderToStaticMarkup(
    createElement(HomeView, { status, ready: true, home, editing, onContinueRun: () => undefined }),
  );

describe('HomeView (an artist’s home, issue 22)', () => {
  it('offers the last run, today’s spend, and one short block for other apps (no curl)', () => {
    const html = render(SIMULATED);
    expect(html).toContain('data-testid="page-home"');
    expect(html).toContain('data-ready="true"');
    expect(html).toContain('Continue the last run');
    expect(html).toContain('A heron at dawn');
    expect(html).toContain('data-cost-micros="42000"');
    expect(html).toContain('4 images from 3 requests');
    expect(html).toContain('value="http://127.0.0.1:8787/v1"');
    expect(html).not.toContain('curl');
    expect(html).toContain('offline simulator');
    expect(html).toContain('Web studio');
  });

  it('offers Generate when there is no run yet, and says Continue editing when Edit has work', () => {
    const html = render(
      { ...SIMULATED, upstream: { kind: 'accounts', label: '2 accounts' } },
      { ...HOME, lastRun: null },
      true,
    );
    expect(html).toContain('data-testid="start-generate"');
    expect(html).toContain('Continue editing');
    expect(html).not.toContain('offline simulator');
  });

  it('counts today from local midnight', () => {
    expect(startOfToday(new Date(2026, 10, 26, 17, 45))).toBe(new Date(2026, 10, 26).getTime());
  });
});
