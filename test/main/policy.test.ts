import { describe, expect, it } from 'vitest';
import {
  CONTENT_SECURITY_POLICY,
  buildWindowOptions,
  isAllowedExternalUrl,
  isPermissionAllowed,
  isSameOrigin,
  withContentSecurityPolicy,
} from '../../src/main/policy';

describe('isAllowedExternalUrl', () => {
  it.each(['https://github.com/atelier/atelier', 'https://platform.openai.com/docs'])(
    'allows %s',
    (url) => expect(isAllowedExternalUrl(url)).toBe(true),
  );

  it.each([
    'http://github.com/',
    'https://evil.example/',
    'https://github.com.evil.example/',
    'https://user:pass@github.com/',
    'https://github.com:8443/',
    'file:///etc/passwd',
    'javascript:alert(1)',
    'not a url',
  ])('refuses %s', (url) => expect(isAllowedExternalUrl(url)).toBe(false));
});

describe('isSameOrigin', () => {
  const origin = 'http://127.0.0.1:8787';
  it('accepts paths on the gateway', () => {
    expect(isSameOrigin('http://127.0.0.1:8787/gallery?x=1', origin)).toBe(true);
  });
  it.each([
    'http://127.0.0.1:8788/',
    'http://localhost:8787/',
    'https://127.0.0.1:8787/',
    'file:///index.html',
    'data:text/html,hi',
    '',
  ])('refuses %s', (url) => expect(isSameOrigin(url, origin)).toBe(false));
});

describe('isPermissionAllowed', () => {
  it('allows only clipboard writes from the gateway', () => {
    const origin = 'http://127.0.0.1:8787';
    expect(isPermissionAllowed('clipboard-sanitized-write', `${origin}/`, origin)).toBe(true);
    expect(isPermissionAllowed('clipboard-sanitized-write', 'https://x.test/', origin)).toBe(false);
    expect(isPermissionAllowed('media', `${origin}/`, origin)).toBe(false);
  });
});

describe('buildWindowOptions', () => {
  it('isolates and sandboxes the renderer', () => {
    expect(buildWindowOptions('/app/preload.cjs', true).webPreferences).toMatchObject({
      preload: '/app/preload.cjs',
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webSecurity: true,
      webviewTag: false,
    });
  });
});

describe('withContentSecurityPolicy', () => {
  it('replaces a CSP in any casing and keeps other headers', () => {
    const headers = withContentSecurityPolicy({
      'content-security-policy': ['default-src *'],
      'Content-Type': ['text/html'],
    });
    expect(headers).toEqual({
      'Content-Type': ['text/html'],
      'Content-Security-Policy': [CONTENT_SECURITY_POLICY],
    });
  });
});
