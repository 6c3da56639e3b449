import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUTH_CLAIMS, decodeJwt, startSimulator } from '../../src/simulator';
import type { Simulator } from '../../src/simulator';
import {
  CLIENT_ID,
  REDIRECT_URI,
  authorize,
  decode,
  login,
  pkcePair,
  postJson,
  rectMask,
  simControl,
  subscriptionHeaders,
  testPicture,
  toLogin,
  tokenForm,
} from './helpers';

let sim: Simulator;

beforeAll(async () => {
  sim = await startSimulator({ speed: 0, planType: 'plus' });
});
afterAll(() => sim.close());

async function refresh(refreshToken: string, asJson = false): Promise<Response> {
  const fields = { grant_type: 'refresh_token', client_id: CLIENT_ID, refresh_token: refreshToken };
  return asJson
    ? postJson(`${sim.url}/oauth/token`, fields, {})
    : fetch(`${sim.url}/oauth/token`, tokenForm(fields));
}

async function errorCode(response: Response): Promise<string> {
  return ((await response.json()) as { error: { code: string } }).error.code;
}

describe('OAuth (authorization code with PKCE)', () => {
  it('issues JWTs with exp, account and plan claims', async () => {
    const auth = await login(sim);
    expect(auth.planType).toBe('plus');
    expect(auth.expiresIn).toBe(3600);
    const access = decodeJwt(auth.accessToken);
    expect(Number(access.exp)).toBeGreaterThan(Date.now() / 1000 + 3500);
    expect((access[AUTH_CLAIMS] as Record<string, string>).chatgpt_account_id).toBe(auth.accountId);
    const id = decodeJwt(auth.idToken);
    expect(id.email).toMatch(/@/);
    expect(Number(id.exp)).toBeGreaterThan(Date.now() / 1000);
  });

  it('rejects a wrong verifier, and a code used twice', async () => {
    const { verifier, challenge } = pkcePair();
    const code = await authorize(sim, challenge);
    const exchange = (codeVerifier: string): Promise<Response> =>
      fetch(
        `${sim.url}/oauth/token`,
        tokenForm({
          grant_type: 'authorization_code',
          code,
          redirect_uri: REDIRECT_URI,
          client_id: CLIENT_ID,
          code_verifier: codeVerifier,
        }),
      );
    const wrong = await exchange(pkcePair().verifier);
    expect(wrong.status).toBe(400);
    expect(await errorCode(wrong)).toBe('invalid_grant');
    const reused = await exchange(verifier);
    expect(reused.status).toBe(400);

    const second = pkcePair();
    const good = await authorize(sim, second.challenge);
    const ok = await fetch(
      `${sim.url}/oauth/token`,
      tokenForm({
        grant_type: 'authorization_code',
        code: good,
        redirect_uri: REDIRECT_URI,
        client_id: CLIENT_ID,
        code_verifier: second.verifier,
      }),
    );
    expect(ok.status).toBe(200);
  });

  it('redirects errors to the client, but refuses non-loopback redirect URIs outright', async () => {
    const plain = await fetch(
      `${sim.url}/oauth/authorize?response_type=code&client_id=x&redirect_uri=${encodeURIComponent(REDIRECT_URI)}&state=s`,
      { redirect: 'manual' },
    );
    expect(plain.status).toBe(302);
    expect(new URL(plain.headers.get('location')!).searchParams.get('error')).toBe(
      'invalid_request',
    );
    const remote = await fetch(
      `${sim.url}/oauth/authorize?response_type=code&client_id=x&redirect_uri=${encodeURIComponent('https://evil.example/cb')}`,
      { redirect: 'manual' },
    );
    expect(remote.status).toBe(400);
  });

  it('rotates refresh tokens (form and JSON) and rejects reuse with refresh_token_reused', async () => {
    const first = await login(sim);
    const rotated = await refresh(first.refreshToken);
    expect(rotated.status).toBe(200);
    const second = toLogin((await rotated.json()) as Record<string, unknown>);
    expect(second.refreshToken).not.toBe(first.refreshToken);
    expect(second.accessToken).not.toBe(first.accessToken);
    expect(second.accountId).toBe(first.accountId);

    const reuse = await refresh(first.refreshToken);
    expect(reuse.status).toBe(401);
    expect(await errorCode(reuse)).toBe('refresh_token_reused');

    const viaJson = await refresh(second.refreshToken, true);
    expect(viaJson.status).toBe(200);
  });

  it('scripts refresh_token_expired and refresh_token_invalidated', async () => {
    const a = await login(sim);
    sim.oauth.setRefreshTokenState(a.refreshToken, 'expired');
    expect(await errorCode(await refresh(a.refreshToken))).toBe('refresh_token_expired');
    const b = await login(sim);
    const control = await postJson(
      `${sim.url}/__sim/refresh-token-state`,
      { refresh_token: b.refreshToken, state: 'invalidated' },
      simControl(sim),
    );
    expect(control.status).toBe(200);
    const failed = await refresh(b.refreshToken);
    expect(failed.status).toBe(401);
    expect(await errorCode(failed)).toBe('refresh_token_invalidated');
  });

  it('keeps one account per login_hint and lets sim_plan_type set the tier', async () => {
    const a = await login(sim, { login_hint: 'team@example.com', sim_plan_type: 'team' });
    const b = await login(sim, { login_hint: 'team@example.com' });
    const c = await login(sim);
    expect(a.planType).toBe('team');
    expect(b.accountId).toBe(a.accountId);
    expect(c.accountId).not.toBe(a.accountId);
  });
});

describe('native images channel', () => {
  const body = {
    model: 'image-model-2',
    prompt: 'native cat',
    size: '1024x1536',
    quality: 'low',
    output_format: 'jpeg',
  };

  it('generates with a valid token and matching chatgpt-account-id, with window headers', async () => {
    const auth = await login(sim);
    const response = await postJson(
      `${sim.url}/backend-api/codex/images/generations`,
      body,
      subscriptionHeaders(auth),
    );
    expect(response.status).toBe(200);
    expect(response.headers.get('x-codex-primary-window-minutes')).toBe('300');
    const json = (await response.json()) as {
      data: { b64_json: string }[];
      usage: { output_tokens: number };
    };
    expect(await decode(json.data[0]!.b64_json)).toMatchObject({
      format: 'jpeg',
      width: 1024,
      height: 1536,
    });
    expect(json.usage.output_tokens).toBe(408);
    expect(sim.calls.at(-1)).toMatchObject({
      kind: 'native.generate',
      accountId: auth.accountId,
      originator: 'atelier-test',
    });
  });

  it('edits with images and mask as data URLs', async () => {
    const auth = await login(sim);
    const url = (b: Buffer): string => `data:image/png;base64,${b.toString('base64')}`;
    const response = await postJson(
      `${sim.url}/backend-api/codex/images/edits`,
      {
        model: 'image-model-2',
        prompt: 'native edit',
        images: [{ image_url: url(await testPicture(1024, 1024)) }],
        mask: {
          image_url: url(await rectMask(1024, 1024, { left: 0, top: 0, width: 100, height: 100 })),
        },
      },
      subscriptionHeaders(auth),
    );
    expect(response.status).toBe(200);
    expect(sim.calls.at(-1)).toMatchObject({ kind: 'native.edit', hasMask: true, imageCount: 1 });
  });

  it('answers 401 for an unknown token, a wrong account header, and API keys', async () => {
    const auth = await login(sim);
    const url = `${sim.url}/backend-api/codex/images/generations`;
    const wrongAccount = await postJson(url, body, {
      ...subscriptionHeaders(auth),
      'chatgpt-account-id': 'someone-else',
    });
    expect(wrongAccount.status).toBe(401);
    const noHeader = await postJson(url, body, { authorization: `Bearer ${auth.accessToken}` });
    expect(noHeader.status).toBe(401);
    const apiKey = await postJson(url, body, {
      authorization: 'Bearer sk-test',
      'chatgpt-account-id': auth.accountId,
    });
    expect(apiKey.status).toBe(401);
  });

  it('answers 401 token_expired once the access token is past exp', async () => {
    const short = await startSimulator({ speed: 0, accessTokenTtlSeconds: 0 });
    try {
      const auth = await login(short);
      const url = `${short.url}/backend-api/codex/images/generations`;
      const expired = await postJson(url, body, subscriptionHeaders(auth));
      expect(expired.status).toBe(401);
      expect(await errorCode(expired)).toBe('token_expired');
    } finally {
      await short.close();
    }
  });

  it('accepts tokens from the in-process sim.oauth.login() shortcut', async () => {
    const tokens = sim.oauth.login({ email: 'shortcut@example.com', planType: 'team' });
    const claims = decodeJwt(tokens.id_token)[AUTH_CLAIMS] as Record<string, string>;
    expect(claims).toMatchObject({
      chatgpt_account_id: tokens.account_id,
      chatgpt_plan_type: 'team',
    });
    const response = await postJson(`${sim.url}/backend-api/codex/images/generations`, body, {
      authorization: `Bearer ${tokens.access_token}`,
      'chatgpt-account-id': tokens.account_id,
    });
    expect(response.status).toBe(200);
  });

  it('answers 404 when the native channel is disabled', async () => {
    const legacy = await startSimulator({ speed: 0, nativeImages: false });
    try {
      const auth = await login(legacy);
      const response = await postJson(
        `${legacy.url}/backend-api/codex/images/generations`,
        body,
        subscriptionHeaders(auth),
      );
      expect(response.status).toBe(404);
      expect(legacy.calls.at(-1)).toMatchObject({ kind: 'native.generate', status: 404 });
    } finally {
      await legacy.close();
    }
  });
});
