import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway } from '../../src/gateway';
import { startTestGateway, tempDir, type TestGateway } from '../support/gateway';

let t: TestGateway;
beforeAll(async () => {
  t = await startTestGateway({ allowedOrigins: ['http://localhost:5173'] });
});
afterAll(async () => {
  await t.close();
});

/** node:http lets a test send any Host header, as a DNS-rebinding page's browser would. */
function rawRequest(
  path: string,
  headers: Record<string, string>,
  method = 'GET',
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port: t.gateway.port, path, method, headers },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

describe('Host header guard (DNS rebinding)', () => {
  it('answers its own loopback names', async () => {
    for (const host of [`127.0.0.1:${t.gateway.port}`, `localhost:${t.gateway.port}`]) {
      const res = await rawRequest('/v1/models', { host, authorization: `Bearer ${t.key}` });
      expect(res.status).toBe(200);
    }
  });

  for (const host of ['evil.example:80', 'attacker.test', `127.0.0.1:${1}`, `evil.example`]) {
    it(`refuses Host: ${host}`, async () => {
      const res = await rawRequest('/v1/models', { host, authorization: `Bearer ${t.key}` });
      expect(res.status).toBe(403);
      const body = JSON.parse(res.body) as { error: { code: string } };
      expect(body.error.code).toBe('forbidden_host');
      expect(res.headers['x-request-id']).toMatch(/^req_/);
    });
  }

  it('refuses the studio too, not only /v1', async () => {
    const res = await rawRequest('/api/status', { host: 'rebound.example:8787' });
    expect(res.status).toBe(403);
  });
});

describe('Origin guard', () => {
  const own = () => `http://127.0.0.1:${t.gateway.port}`;

  it('refuses a foreign web page', async () => {
    const res = await rawRequest('/v1/models', {
      host: `127.0.0.1:${t.gateway.port}`,
      origin: 'https://evil.example',
      authorization: `Bearer ${t.key}`,
    });
    expect(res.status).toBe(403);
    expect((JSON.parse(res.body) as { error: { code: string } }).error.code).toBe(
      'forbidden_origin',
    );
  });

  it('accepts the studio origin', async () => {
    const res = await rawRequest('/v1/models', {
      host: `127.0.0.1:${t.gateway.port}`,
      origin: own(),
      authorization: `Bearer ${t.key}`,
    });
    expect(res.status).toBe(200);
  });

  it('answers CORS preflight for an allowed origin', async () => {
    const res = await rawRequest(
      '/v1/images/generations',
      {
        host: `127.0.0.1:${t.gateway.port}`,
        origin: 'http://localhost:5173',
        'access-control-request-method': 'POST',
      },
      'OPTIONS',
    );
    expect(res.status).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe('http://localhost:5173');
  });
});

describe('binding', () => {
  it('listens on loopback only by default', () => {
    expect(new URL(t.url).hostname).toBe('127.0.0.1');
  });

  it('serves status without secrets', async () => {
    const res = await fetch(`${t.url}/api/status`);
    const body = (await res.json()) as { upstream: { kind: string; label: string } };
    expect(body.upstream).toEqual({ kind: 'simulator', label: 'Offline simulator' });
    expect(JSON.stringify(body)).not.toContain(t.key);
  });

  it('answers unknown /v1 paths with a JSON 404', async () => {
    const res = await fetch(`${t.url}/v1/nothing`, {
      headers: { authorization: `Bearer ${t.key}` },
    });
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: { type: string } }).error.type).toBe('not_found_error');
  });
});

describe('security headers on every response', () => {
  let studio: Awaited<ReturnType<typeof createGateway>>;
  let studioUrl: string;
  let staticDir: string;
  beforeAll(async () => {
    // A built studio stands in as index.html; the gateway serves it like out/renderer.
    staticDir = tempDir('atelier-static-');
    fs.writeFileSync(path.join(staticDir, 'index.html'), '<!doctype html><title>Atelier</title>');
    studio = await createGateway({
      host: '127.0.0.1',
      port: 0,
      dataDir: tempDir(),
      staticDir,
      simulatorSpeed: 0,
      oauthCallbackPort: 0,
      log: () => undefined,
    });
    studioUrl = await studio.listen();
  });
  afterAll(async () => {
    await studio.close();
    fs.rmSync(staticDir, { recursive: true, force: true });
  });

  it.each([
    ['the studio page', '/', 200],
    ['a studio route', '/gallery', 200],
    ['the API without a key', '/v1/models', 401],
    ['status', '/api/status', 200],
    ['an unknown API path', '/api/nothing', 404],
  ])('%s', async (_case, pathname, status) => {
    const res = await fetch(`${studioUrl}${pathname}`);
    expect(res.status).toBe(status);
    const csp = res.headers.get('content-security-policy')!.split('; ');
    expect(csp).toEqual(expect.arrayContaining(["default-src 'self'", "frame-ancestors 'none'"]));
    expect(csp).toEqual(expect.arrayContaining(["base-uri 'none'", "form-action 'self'"]));
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
  });

  it('also on a refused Host (a DNS-rebinding page gets no framable page either)', async () => {
    const res = await rawRequest('/', { host: 'evil.example' });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.headers['x-frame-options']).toBe('DENY');
    expect(res.headers['content-security-policy']).toContain("frame-ancestors 'none'");
  });
});
