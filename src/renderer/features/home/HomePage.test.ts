import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import type { GatewayStatus } from '../../lib/api';
import { curlSnippet } from './curlSnippet';
import { HomePage } from './HomePage';

const SIMULATED: GatewayStatus = {
  name: 'Atelier',
  version: '0.1.0',
  upstream: { kind: 'simulator', label: 'Offline simulator' },
  address: 'http://127.0.0.1:8787',
};

const render = (status: GatewayStatus) => renderToStaticMarkup(createElement(HomePage, { status }));

describe('HomePage', () => {
  it('shows the address, the simulator badge and how to make a key', () => {
    const html = render(SIMULATED);
    expect(html).toContain('value="http://127.0.0.1:8787/v1"');
    expect(html).toContain('Offline simulator');
    expect(html).toContain('npx atelier keys create --name NAME');
    expect(html).toContain('aria-label="Copy: Base URL for OpenAI clients"');
    // Rendered outside Electron, as in a plain browser: no window.atelier.
    expect(html).toContain('Web studio');
  });

  it('shows the account label instead of the simulator badge', () => {
    const html = render({ ...SIMULATED, upstream: { kind: 'accounts', label: '2 accounts' } });
    expect(html).toContain('2 accounts');
    expect(html).not.toContain('Offline simulator');
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
