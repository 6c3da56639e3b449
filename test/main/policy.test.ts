import { describe, expect, it } from 'vitest';
import {
  CONTENT_SECURITY_POLICY,
  buildWindowOptions,
  isAllowedExternalUrl,
  isAllowedSignInUrl,
  isInsideFolder,
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

describe('isAllowedSignInUrl', () => {
  // The gateway's signInIssuers: the provider, an account's issuer, the offline simulator.
  const issuers = [
    'https://auth.openai.com',
    'https://issuer.example:8443',
    'http://127.0.0.1:41234',
    'http://localhost:41235',
    'http://[::1]:41236',
    'http://192.168.1.5',
  ];
  it.each([
    'https://auth.openai.com/oauth/authorize?client_id=x&state=y',
    'https://issuer.example:8443/oauth/authorize',
    // A local issuer (the offline simulator) over plain http on this machine.
    'http://127.0.0.1:41234/oauth/authorize?state=y',
    'http://localhost:41235/oauth/authorize',
    'http://[::1]:41236/oauth/authorize',
  ])('allows %s', (url) => expect(isAllowedSignInUrl(url, issuers)).toBe(true));

  it.each([
    // https, but at an issuer no account uses: a page chose it.
    'https://evil.example/oauth/authorize',
    'https://issuer.example/oauth/authorize', // the right host on another port
    'http://127.0.0.1:9999/oauth/authorize', // loopback, but not a known issuer
    'http://auth.openai.com/oauth/authorize',
    'http://192.168.1.5/oauth/authorize', // plain http off this machine, even if configured
    'http://127.0.0.1.evil.example/oauth/authorize',
    'https://user:pass@auth.openai.com/oauth/authorize',
    'file:///etc/passwd',
    'javascript:alert(1)',
    'data:text/html,hi',
    'not a url',
  ])('refuses %s', (url) => expect(isAllowedSignInUrl(url, issuers)).toBe(false));
});

describe('isInsideFolder', () => {
  it.each([
    ['/data/Atelier/images/a.png', true],
    ['/data/Atelier/a/../b.png', true],
    ['/data/Atelier', false],
    ['/data/Atelier/', false],
    ['/data/Atelier-evil/a.png', false],
    ['/data/Atelier/../x.png', false],
    ['/etc/passwd', false],
  ])('%s is inside: %s', (path, inside) => {
    expect(isInsideFolder(path, '/data/Atelier')).toBe(inside);
  });
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
