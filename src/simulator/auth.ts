import { countAtOnce, type Ctx } from './context';
import { SimHttpError } from './errors';
import { bearerToken, headerValue } from './http';
import type { Account } from './oauthStore';

function unauthorized(message: string, code: string | null): SimHttpError {
  return new SimHttpError(401, 'invalid_request_error', code, message);
}

/**
 * API-key routes accept any non-empty bearer, except tokens revoked through the control API. The
 * key stands for the account: faults can target it with `match.accountId` and the call log shows it.
 */
export function requireApiKey(ctx: Ctx): string {
  const token = bearerToken(ctx.req);
  if (ctx.call && token) ctx.call.accountId = token;
  if (token) countAtOnce(ctx, token);
  if (!token) {
    throw unauthorized(
      "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth.",
      null,
    );
  }
  if (ctx.state.revoked.has(token)) {
    throw unauthorized(`Incorrect API key provided: ${token.slice(0, 6)}...`, 'invalid_api_key');
  }
  return token;
}

/**
 * The subscription backend accepts only live access tokens this simulator issued, with the
 * `chatgpt-account-id` header naming the token's own account.
 */
export function requireSubscription(ctx: Ctx): Account {
  const accountHeader = headerValue(ctx.req, 'chatgpt-account-id');
  if (ctx.call) {
    ctx.call.accountId = accountHeader;
    ctx.call.originator = headerValue(ctx.req, 'originator');
  }
  if (accountHeader) countAtOnce(ctx, accountHeader);
  const token = bearerToken(ctx.req);
  const grant = token ? ctx.state.oauth.accessGrant(token) : undefined;
  if (!token || !grant) throw unauthorized('Missing or unknown access token.', 'invalid_token');
  if (ctx.state.revoked.has(token))
    throw unauthorized('The access token was revoked.', 'token_revoked');
  if (Date.now() >= grant.expiresAtMs) {
    throw unauthorized(
      'Provided authentication token is expired. Please try signing in again.',
      'token_expired',
    );
  }
  if (accountHeader !== grant.account.accountId) {
    throw unauthorized(
      'The chatgpt-account-id header does not match the access token.',
      'account_mismatch',
    );
  }
  return grant.account;
}

/** Windows headers on subscription replies: usage grows by a percent per call of the account. */
export function accountUsagePercent(ctx: Ctx, accountId: string): number {
  const calls = ctx.state.calls.filter(
    (call) => call.accountId === accountId && call.kind !== 'oauth.token',
  );
  return Math.min(99, calls.length);
}
