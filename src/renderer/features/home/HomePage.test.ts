import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import type { GatewayStatus } from '../../lib/api/images';
import { curlSnippet } from './curlSnippet';
import { HomeView } from './HomePage';

const SIMULATED: GatewayStatus = {
  name: 'Atelier',
  version: '0.1.0',
  upstream: { kind: 'simulator', label: 'Offline simulator' },
  address: 'http://127.0.0.1:8787',
};

const render = (status: GatewayStatus) =>
  renderToStaticMarkup(createElement(HomeView, { status, ready: true }));

describe('HomeView', () => {
  it('shows the address, the simulator notice and how to make a key', () => {
    const html = render(SIMULATED);
    expect(html).toContain('data-testid="page-home"');
    expect(html).toContain('data-ready="true"');
    expect(html).toContain('value="http://127.0.0.1:8787/v1"');
    expect(html).toContain('offline simulator');
    expect(html).toContain('npx atelier keys create --name NAME');
    expect(html).toContain('aria-label="Copy: Base URL for OpenAI clients"');
    // Rendered outside Electron, as in a plain browser: no window.atelier.
    expect(html).toContain('Web studio');
  });

  it('leaves the simulator notice out when accounts are connected', () => {
    const html = render({ ...SIMULATED, upstream: { kind: 'accounts', label: '2 accounts' } });
    expect(html).not.toContain('offline simulator');
  });
});

describe('curlSnippet', () => {
  it('calls the generations endpoint with a bearer key', () => {
    const snippet = curlSnippet('http://127.0.0.1:8787/');
    expect(snippet).toContain('curl http://127.0.0.1:8787/v1/images/generations');
    expect(snippet).toContain('-H "Authorization: Bearer <your key>"');
    expect(snippet).toContain('"model": "image-model-2"');
  });
});
