import { describe, expect, it } from 'vitest';
import { baseUrl, curlSnippet, nodeSnippet } from './snippets';

const KEY = { name: 'my app', prefix: 'AbCd1234' };

describe('server snippets', () => {
  it('point clients at /v1 and read the key from $ATELIER_KEY, never inline', () => {
    expect(baseUrl('http://127.0.0.1:8787/')).toBe('http://127.0.0.1:8787/v1');
    const curl = curlSnippet('http://127.0.0.1:8787', KEY);
    expect(curl).toContain('curl http://127.0.0.1:8787/v1/images/generations');
    expect(curl).toContain('-H "Authorization: Bearer $ATELIER_KEY"');
    expect(curl).toContain('key "my app" (atl_AbCd1234…)');
    const node = nodeSnippet('http://127.0.0.1:8787', null);
    expect(node).toContain("baseURL: 'http://127.0.0.1:8787/v1'");
    expect(node).toContain('apiKey: process.env.ATELIER_KEY');
    expect(node).toContain('holds your key');
  });
});
