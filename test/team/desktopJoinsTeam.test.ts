import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { AccountResponse } from '../../src/shared/admin';
import { generateSecretKey } from '../../src/gateway/secrets/secretKey';
import { startTestGateway, studioLogin, type TestGateway } from '../support/gateway';

// An artist's own Atelier joins the team by adding the team gateway as an API-key upstream
// account: its `/v1` and the artist's team key (docs/team.md, "An artist's desktop joins the team"). Two real
// gateways over real sockets; the local one keeps the team key sealed in its database
// (ATELIER_SECRET_KEY: this machine has no keychain to lean on in the test).
let team: TestGateway;
let desktop: TestGateway;

beforeAll(async () => {
  vi.stubEnv('ATELIER_SECRET_KEY', generateSecretKey());
  vi.stubEnv('ATELIER_SECRET_STORE', '');
  team = await startTestGateway();
  desktop = await startTestGateway();
});
afterAll(async () => {
  await desktop?.close();
  await team?.close();
  vi.unstubAllEnvs();
});

describe('a desktop Atelier with the team gateway as an upstream account', () => {
  it('sends its work through the team gateway, each gateway recording the request once', async () => {
    const teamKey = await team.newKey('artist on the team');
    const studio = await studioLogin(desktop);
    const { account } = await studio.json<AccountResponse>('/api/admin/accounts', {
      method: 'POST',
      body: { kind: 'api_key', name: 'team', baseUrl: `${team.url}/v1`, apiKey: teamKey.key },
    });

    const res = await fetch(`${desktop.url}/v1/images/generations`, {
      method: 'POST',
      headers: { authorization: `Bearer ${desktop.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'image-model-2',
        prompt: 'a kite over the team',
        quality: 'low',
      }),
    });
    const body = (await res.json()) as { data: Array<{ b64_json?: string }> };
    expect(res.status).toBe(200);
    expect(body.data).toHaveLength(1);
    const localId = res.headers.get('x-request-id');

    // Once on the desktop, served by the team account.
    await expect
      .poll(() =>
        desktop.db
          .prepare(
            'SELECT status, images, upstream_account_id FROM usage_records WHERE request_id = ?',
          )
          .all(localId),
      )
      .toEqual([{ status: 200, images: 1, upstream_account_id: account.id }]);
    // Once on the team gateway, under the artist's team key.
    await expect
      .poll(() =>
        team.db
          .prepare('SELECT status, images FROM usage_records WHERE api_key_id = ?')
          .all(teamKey.id),
      )
      .toEqual([{ status: 200, images: 1 }]);
    // The desktop's row names the team gateway's request id: the key to its row there.
    const teamRow = team.db
      .prepare('SELECT request_id FROM usage_records WHERE api_key_id = ?')
      .get(teamKey.id) as { request_id: string };
    expect(
      desktop.db
        .prepare('SELECT upstream_request_id FROM usage_records WHERE request_id = ?')
        .get(localId),
    ).toEqual({ upstream_request_id: teamRow.request_id });
  });
});
