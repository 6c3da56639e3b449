import { createHash, randomBytes } from 'node:crypto';
import { decodeJwt, AUTH_CLAIMS, CONTROL_HEADER } from '../../src/simulator';
import type { Simulator } from '../../src/simulator';
import { decodeB64 } from '../support/images';

/** Helpers for the simulator's own tests: real HTTP, real SSE parsing, real image decoding. */

export const API_KEY = 'sk-test-simulator';

/** Headers for the control API (`/__sim/*`): the run's credential. */
export function simControl(sim: Simulator): Record<string, string> {
  return { [CONTROL_HEADER]: sim.controlToken };
}

export async function postJson(
  url: string,
  body: unknown,
  headers: Record<string, string> = { authorization: `Bearer ${API_KEY}` },
): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
}

export interface SseEvent {
  event: string;
  data: Record<string, unknown>;
}

/** Reads a whole SSE body and splits it the way the SDKs do: blank-line separated blocks. */
export async function readSse(response: Response): Promise<SseEvent[]> {
  const text = await response.text();
  return text
    .split('\n\n')
    .filter((block) => block.trim() !== '')
    .map((block) => {
      const lines = block.split('\n');
      const event = lines.find((l) => l.startsWith('event: '))?.slice(7) ?? '';
      const data = lines
        .filter((l) => l.startsWith('data: '))
        .map((l) => l.slice(6))
        .join('\n');
      return { event, data: JSON.parse(data) as Record<string, unknown> };
    });
}

export { meanDiff, rectMask, testPicture } from '../support/images';

/** Decodes to RGB so pixels compare across formats. */
export const decode = (b64: string) => decodeB64(b64, 'rgb');

export interface Login {
  accessToken: string;
  refreshToken: string;
  idToken: string;
  accountId: string;
  planType: string;
  expiresIn: number;
}

export const CLIENT_ID = 'app_test_client';
export const REDIRECT_URI = 'http://localhost:1455/auth/callback';

export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(64).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** Runs the authorization code flow with PKCE and returns the code from the redirect. */
export async function authorize(
  sim: Simulator,
  challenge: string,
  extra: Record<string, string> = {},
): Promise<string> {
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: CLIENT_ID,
    redirect_uri: REDIRECT_URI,
    scope: 'openid profile email offline_access',
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state: 'st-123',
    ...extra,
  });
  const response = await fetch(`${sim.url}/oauth/authorize?${query}`, { redirect: 'manual' });
  if (response.status !== 302) throw new Error(`authorize answered ${response.status}`);
  const location = new URL(response.headers.get('location')!);
  if (location.searchParams.get('state') !== 'st-123') throw new Error('state not echoed');
  return location.searchParams.get('code')!;
}

export function tokenForm(fields: Record<string, string>): RequestInit {
  return {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
  };
}

export function toLogin(body: Record<string, unknown>): Login {
  const claims = decodeJwt(String(body.id_token))[AUTH_CLAIMS] as Record<string, string>;
  return {
    accessToken: String(body.access_token),
    refreshToken: String(body.refresh_token),
    idToken: String(body.id_token),
    accountId: claims.chatgpt_account_id!,
    planType: claims.chatgpt_plan_type!,
    expiresIn: Number(body.expires_in),
  };
}

export async function login(sim: Simulator, extra: Record<string, string> = {}): Promise<Login> {
  const { verifier, challenge } = pkcePair();
  const code = await authorize(sim, challenge, extra);
  const response = await fetch(
    `${sim.url}/oauth/token`,
    tokenForm({
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT_URI,
      client_id: CLIENT_ID,
      code_verifier: verifier,
    }),
  );
  if (response.status !== 200)
    throw new Error(`token exchange answered ${response.status}: ${await response.text()}`);
  return toLogin((await response.json()) as Record<string, unknown>);
}

export function subscriptionHeaders(auth: Login): Record<string, string> {
  return {
    authorization: `Bearer ${auth.accessToken}`,
    'chatgpt-account-id': auth.accountId,
    originator: 'atelier-test',
  };
}
