import { recordCall } from './context';
import type { Ctx } from './context';
import { SimHttpError, invalidRequest, missingParameter } from './errors';
import { engageFault } from './faultEffects';
import { isJson, readBody, readJsonObject, sendJson } from './http';
import { pkceChallenge } from './oauthStore';

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

function isLoopback(uri: string): boolean {
  try {
    const url = new URL(uri);
    return url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname);
  } catch {
    return false;
  }
}

function redirect(ctx: Ctx, target: URL): void {
  ctx.res.writeHead(302, { location: target.toString(), 'content-length': 0 });
  ctx.res.end();
}

/**
 * GET /oauth/authorize: consents at once and sends the browser back with a code. Simulator
 * extensions: `login_hint` picks the account by email (same email, same account) and
 * `sim_plan_type` sets its plan, so one simulator can hold several accounts of several tiers.
 */
export async function oauthAuthorize(ctx: Ctx): Promise<void> {
  recordCall(ctx, 'oauth.authorize');
  const q = ctx.url.searchParams;
  const redirectUri = q.get('redirect_uri') ?? '';
  // Errors about the client itself are shown here, never sent to an unverified redirect target.
  if (!isLoopback(redirectUri))
    throw invalidRequest('redirect_uri', 'redirect_uri must be a loopback http URL.');
  const clientId = q.get('client_id');
  if (!clientId) throw missingParameter('client_id');
  await engageFault(ctx, { imageWork: false, streaming: false });
  const target = new URL(redirectUri);
  const state = q.get('state');
  if (state !== null) target.searchParams.set('state', state);
  const fail = (error: string, description: string): void => {
    target.searchParams.set('error', error);
    target.searchParams.set('error_description', description);
    redirect(ctx, target);
  };
  if (q.get('response_type') !== 'code')
    return fail('unsupported_response_type', 'response_type must be code');
  const challenge = q.get('code_challenge');
  if (!challenge || q.get('code_challenge_method') !== 'S256') {
    return fail('invalid_request', 'PKCE with code_challenge_method=S256 is required');
  }
  const account = ctx.state.oauth.account(
    q.get('login_hint') ?? undefined,
    q.get('sim_plan_type') ?? undefined,
  );
  const code = ctx.state.oauth.issueCode({
    clientId,
    redirectUri,
    challenge,
    scope: q.get('scope') ?? '',
    account,
  });
  target.searchParams.set('code', code);
  redirect(ctx, target);
}

function grantError(status: number, code: string, message: string): SimHttpError {
  return new SimHttpError(status, 'invalid_request_error', code, message);
}

async function readTokenBody(ctx: Ctx): Promise<Record<string, unknown>> {
  if (isJson(ctx.req)) return readJsonObject(ctx.req);
  const text = (await readBody(ctx.req, 64 * 1024)).toString('utf8');
  return Object.fromEntries(new URLSearchParams(text));
}

const str = (value: unknown): string => (typeof value === 'string' ? value : '');

/** POST /oauth/token: code exchange with PKCE, and refresh with rotating refresh tokens. */
export async function oauthToken(ctx: Ctx): Promise<void> {
  const call = recordCall(ctx, 'oauth.token');
  const body = await readTokenBody(ctx);
  const store = ctx.state.oauth;
  const grantType = str(body.grant_type);
  await engageFault(ctx, { imageWork: false, streaming: false });
  if (grantType === 'authorization_code') {
    for (const name of ['code', 'redirect_uri', 'client_id', 'code_verifier']) {
      if (!str(body[name])) throw missingParameter(name);
    }
    const code = store.takeCode(str(body.code));
    if (!code)
      throw grantError(
        400,
        'invalid_grant',
        'The authorization code is invalid, expired or already used.',
      );
    if (code.clientId !== body.client_id || code.redirectUri !== body.redirect_uri) {
      throw grantError(
        400,
        'invalid_grant',
        'client_id or redirect_uri does not match the authorization request.',
      );
    }
    if (pkceChallenge(str(body.code_verifier)) !== code.challenge) {
      throw grantError(
        400,
        'invalid_grant',
        'PKCE verification failed: code_verifier does not match the challenge.',
      );
    }
    call.accountId = code.account.accountId;
    sendJson(
      ctx.res,
      200,
      store.issueTokens(code.account, code.clientId, code.scope, ctx.state.url),
    );
    return;
  }
  if (grantType === 'refresh_token') {
    const token = str(body.refresh_token);
    if (!token) throw missingParameter('refresh_token');
    const grant = store.refreshGrant(token);
    if (!grant)
      throw grantError(401, 'refresh_token_invalidated', 'The refresh token is not valid.');
    call.accountId = grant.account.accountId;
    if (grant.state !== 'active') {
      throw grantError(
        401,
        `refresh_token_${grant.state}`,
        `The refresh token was ${grant.state}; please sign in again.`,
      );
    }
    if (str(body.client_id) && body.client_id !== grant.clientId) {
      throw grantError(401, 'invalid_client', 'client_id does not match the refresh token.');
    }
    // Rotation: the old token is spent; using it again is a reuse, a permanent failure.
    store.setRefreshState(token, 'reused');
    sendJson(
      ctx.res,
      200,
      store.issueTokens(grant.account, grant.clientId, grant.scope, ctx.state.url),
    );
    return;
  }
  throw grantError(400, 'unsupported_grant_type', `Unsupported grant_type '${grantType}'.`);
}
