import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startTestGateway,
  studioLogin,
  usageRow,
  type StudioClient,
  type TestGateway,
} from '../support/gateway';

let t: TestGateway;
let studio: StudioClient;
const ALLOWED = 'http://localhost:5173';

beforeAll(async () => {
  t = await startTestGateway({ allowedOrigins: [ALLOWED] });
  studio = await studioLogin(t);
});
afterAll(async () => {
  await t.close();
});

/** node:http, so a test can send any header a browser (or an attacker's process) might. */
function raw(
  path: string,
  headers: Record<string, string>,
  method = 'GET',
  body?: string,
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port: t.gateway.port,
        path,
        method,
        headers: { host: `127.0.0.1:${t.gateway.port}`, ...headers },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const codeOf = (body: string) => (JSON.parse(body) as { error: { code: string } }).error.code;
const tokenOf = (url: string) => new URL(url).searchParams.get('token')!;

describe('the studio login link', () => {
  it('is a one-time link on the gateway with 32 random bytes', async () => {
    const url = await t.gateway.createStudioLogin();
    expect(url.startsWith(`${t.url}/login?token=`)).toBe(true);
    expect(Buffer.from(tokenOf(url), 'base64url')).toHaveLength(32);
    expect(tokenOf(await t.gateway.createStudioLogin())).not.toBe(tokenOf(url));
  });

  it('sets an HttpOnly, SameSite=Strict session cookie for / and sends the browser to the studio', async () => {
    const res = await raw(`/login?token=${tokenOf(await t.gateway.createStudioLogin())}`, {});
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe('/');
    expect(res.headers['cache-control']).toBe('no-store');
    const cookie = res.headers['set-cookie']![0]!;
    const [pair, ...attributes] = cookie.split(';').map((p) => p.trim());
    expect(pair).toMatch(new RegExp(`^atelier_session_${t.gateway.port}=[\\w-]{43}$`));
    expect(attributes.sort()).toEqual(['HttpOnly', 'Path=/', 'SameSite=Strict']);
  });

  it('works once', async () => {
    const path = `/login?token=${tokenOf(await t.gateway.createStudioLogin())}`;
    expect((await raw(path, {})).status).toBe(303);
    const again = await raw(path, {});
    expect(again.status).toBe(401);
    expect(codeOf(again.body)).toBe('studio_login_invalid');
    expect(again.headers['set-cookie']).toBeUndefined();
  });

  it('refuses a made-up or missing token', async () => {
    for (const path of ['/login?token=AAAA', '/login', `/login?token=${'x'.repeat(43)}`]) {
      const res = await raw(path, {});
      expect([res.status, codeOf(res.body)]).toEqual([401, 'studio_login_invalid']);
    }
  });
});

describe('the admin API guard', () => {
  const session = () => ({ cookie: studio.cookie, 'x-atelier-studio': '1' });

  it('answers the studio', async () => {
    const res = await raw('/api/admin/session', session());
    expect([res.status, JSON.parse(res.body)]).toEqual([
      200,
      { ok: true, startedAt: expect.any(Number) as unknown },
    ]);
    expect(res.headers['cache-control']).toBe('no-store');
  });

  it('refuses without the header, without the cookie, or with a cookie it never issued', async () => {
    const cases: Array<Record<string, string>> = [
      { cookie: studio.cookie },
      { 'x-atelier-studio': '1' },
      { cookie: `atelier_session_${t.gateway.port}=forged-session-id`, 'x-atelier-studio': '1' },
      { cookie: studio.cookie, 'x-atelier-studio': 'true' },
      {},
    ];
    for (const headers of cases) {
      const res = await raw('/api/admin/keys', headers);
      expect([res.status, codeOf(res.body)]).toEqual([401, 'studio_session_required']);
    }
  });

  it('refuses a foreign web page even with the session', async () => {
    const res = await raw('/api/admin/keys', { ...session(), origin: 'https://evil.example' });
    expect([res.status, codeOf(res.body)]).toEqual([403, 'forbidden_origin']);
  });

  it('refuses an origin allowed to call /v1: the admin API is for the studio only', async () => {
    const res = await raw('/api/admin/keys', { ...session(), origin: ALLOWED });
    expect([res.status, codeOf(res.body)]).toEqual([401, 'studio_session_required']);
  });

  it('accepts the studio origin', async () => {
    const res = await raw('/api/admin/keys', {
      ...session(),
      origin: `http://127.0.0.1:${t.gateway.port}`,
    });
    expect(res.status).toBe(200);
  });

  it('lets the browser load image files without the header only when it says same-origin', async () => {
    const path = '/api/admin/images/img_00/thumb';
    const sameOrigin = await raw(path, { cookie: studio.cookie, 'sec-fetch-site': 'same-origin' });
    expect(sameOrigin.status).toBe(404); // past the guard: there is no such image
    for (const site of ['same-site', 'cross-site', 'none']) {
      const res = await raw(path, { cookie: studio.cookie, 'sec-fetch-site': site });
      expect(res.status).toBe(401);
    }
    // Nor does same-origin stand in for the header anywhere else, or for changes.
    const keys = await raw('/api/admin/keys', {
      cookie: studio.cookie,
      'sec-fetch-site': 'same-origin',
    });
    expect(keys.status).toBe(401);
  });
});

describe('/v1 as the studio', () => {
  const generate = (headers: Record<string, string>) =>
    fetch(`${t.url}/v1/images/generations`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ model: 'image-model-2', prompt: 'a lighthouse', quality: 'low' }),
    });

  it('is recorded under the built-in Studio key, made on first use', async () => {
    const res = await generate({ cookie: studio.cookie, 'x-atelier-studio': '1' });
    expect(res.status).toBe(200);
    const row = await usageRow(t, res.headers.get('x-request-id')!);
    const { keys } = await studio.json<{
      keys: Array<{ id: string; name: string; group: string; builtIn: boolean; requests: number }>;
    }>('/api/admin/keys');
    const builtIn = keys.filter((k) => k.builtIn);
    expect(builtIn).toHaveLength(1);
    expect(builtIn[0]).toMatchObject({ name: 'Studio', group: 'default', requests: 1 });
    expect(row.api_key_id).toBe(builtIn[0]!.id);
    expect(row.status).toBe(200);

    const second = await generate({ cookie: studio.cookie, 'x-atelier-studio': '1' });
    expect((await usageRow(t, second.headers.get('x-request-id')!)).api_key_id).toBe(
      builtIn[0]!.id,
    );
  });

  it('keeps the 401 of every other case', async () => {
    const cases: Array<Record<string, string>> = [
      {},
      { cookie: studio.cookie },
      { 'x-atelier-studio': '1' },
      { cookie: `atelier_session_${t.gateway.port}=nope`, 'x-atelier-studio': '1' },
      { cookie: studio.cookie, 'x-atelier-studio': '1', authorization: 'Bearer atl_wrong' },
    ];
    for (const headers of cases) {
      const res = await generate(headers);
      expect(res.status).toBe(401);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe(
        'INVALID_API_KEY',
      );
    }
  });

  it('an Authorization header wins over the session', async () => {
    const app = await t.newKey('app');
    const res = await generate({
      cookie: studio.cookie,
      'x-atelier-studio': '1',
      authorization: `Bearer ${app.key}`,
    });
    expect((await usageRow(t, res.headers.get('x-request-id')!)).api_key_id).toBe(app.id);
  });
});
