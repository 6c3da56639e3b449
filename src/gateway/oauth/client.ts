import { accessTokenExpiry } from './claims';

/** What a code exchange or a refresh yields. */
export interface TokenSet {
  accessToken: string;
  refreshToken: string;
  idToken: string;
  /** ms since the epoch: the access token's JWT `exp`, else now + `expires_in`, else null. */
  expiresAt: number | null;
}

export interface RefreshedTokens extends Omit<TokenSet, 'idToken'> {
  /** Null when the issuer sent no new id token: keep the old one. */
  idToken: string | null;
  /** False when the issuer kept the refresh token (none came back). */
  rotated: boolean;
}

/** A failed token request. `permanent` means only a new sign-in can fix it. */
export class OAuthError extends Error {
  constructor(
    message: string,
    readonly permanent: boolean,
    readonly status: number | null,
    readonly code: string | null,
  ) {
    super(message);
    this.name = 'OAuthError';
  }
}

/** Refresh failures that mean the grant is gone (protocol page 2.2), plus OAuth's own. */
const PERMANENT_CODES = new Set([
  'refresh_token_expired',
  'refresh_token_reused',
  'refresh_token_invalidated',
  'invalid_grant',
]);

const TOKEN_TIMEOUT_MS = 30_000;

interface HttpOptions {
  fetchImpl?: typeof fetch;
  now?: () => number;
  /** Per request; the issuer answers in well under a second when it is healthy. */
  timeoutMs?: number;
}

export function authorizeUrl(opts: {
  issuer: string;
  clientId: string;
  redirectUri: string;
  scope: string;
  challenge: string;
  state: string;
  /** Further query parameters (`login_hint`, or the simulator's `sim_plan_type`). */
  extraParams?: Record<string, string>;
}): string {
  const url = new URL(`${trimSlash(opts.issuer)}/oauth/authorize`);
  const params = {
    response_type: 'code',
    client_id: opts.clientId,
    redirect_uri: opts.redirectUri,
    scope: opts.scope,
    code_challenge: opts.challenge,
    code_challenge_method: 'S256',
    state: opts.state,
    ...opts.extraParams,
  };
  for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
  return url.toString();
}

export async function exchangeCode(
  opts: {
    issuer: string;
    clientId: string;
    code: string;
    redirectUri: string;
    verifier: string;
  } & HttpOptions,
): Promise<TokenSet> {
  const body = await postToken(opts, {
    grant_type: 'authorization_code',
    code: opts.code,
    redirect_uri: opts.redirectUri,
    client_id: opts.clientId,
    code_verifier: opts.verifier,
  });
  const refreshToken = field(body, 'refresh_token');
  const idToken = field(body, 'id_token');
  if (!refreshToken || !idToken) {
    throw new OAuthError(
      'the issuer answered the code exchange without a refresh token or id token (is offline_access in the scope?)',
      true,
      200,
      null,
    );
  }
  return { ...accessPart(body, opts.now ?? Date.now), refreshToken, idToken };
}

/**
 * Trades a refresh token for new tokens. The refresh token may rotate; when none comes back the
 * old one stays valid and is kept.
 */
export async function refreshTokens(
  opts: { issuer: string; clientId: string; refreshToken: string } & HttpOptions,
): Promise<RefreshedTokens> {
  const body = await postToken(opts, {
    grant_type: 'refresh_token',
    client_id: opts.clientId,
    refresh_token: opts.refreshToken,
  });
  const next = field(body, 'refresh_token');
  return {
    ...accessPart(body, opts.now ?? Date.now),
    refreshToken: next ?? opts.refreshToken,
    idToken: field(body, 'id_token'),
    rotated: next !== null && next !== opts.refreshToken,
  };
}

async function postToken(
  opts: { issuer: string } & HttpOptions,
  fields: Record<string, string>,
): Promise<Record<string, unknown>> {
  const fetchImpl = opts.fetchImpl ?? fetch;
  let response: Response;
  let text: string;
  try {
    response = await fetchImpl(`${trimSlash(opts.issuer)}/oauth/token`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        accept: 'application/json',
      },
      body: new URLSearchParams(fields).toString(),
      signal: AbortSignal.timeout(opts.timeoutMs ?? TOKEN_TIMEOUT_MS),
    });
    text = await response.text();
  } catch (error) {
    throw new OAuthError(`the issuer could not be reached: ${describe(error)}`, false, null, null);
  }
  let parsed: unknown = null;
  try {
    parsed = JSON.parse(text);
  } catch {
    // Handled below: a non-JSON body is an error whatever the status.
  }
  if (response.ok && isRecord(parsed)) return parsed;
  throw failureOf(response.status, parsed, text);
}

/** Reads `{error: {code, message}}` (the provider) and `{error, error_description}` (RFC 6749). */
function failureOf(status: number, parsed: unknown, text: string): OAuthError {
  const body = isRecord(parsed) ? parsed : {};
  const nested = isRecord(body.error) ? body.error : {};
  const code = str(nested.code) ?? str(body.error) ?? str(body.code) ?? str(nested.type) ?? null;
  const detail =
    str(nested.message) ?? str(body.error_description) ?? str(body.message) ?? text.slice(0, 200);
  const permanent = status === 401 || (code !== null && PERMANENT_CODES.has(code));
  const message = `the issuer answered HTTP ${status}${code ? ` ${code}` : ''}${detail ? `: ${detail}` : ''}`;
  if (status >= 200 && status < 300)
    return new OAuthError('the issuer answered with a body that is not JSON', false, status, null);
  return new OAuthError(message, permanent, status, code);
}

function accessPart(body: Record<string, unknown>, now: () => number) {
  const accessToken = field(body, 'access_token');
  if (!accessToken)
    throw new OAuthError('the issuer answered without an access token', false, 200, null);
  const expiresIn = Number(body.expires_in);
  const expiresAt =
    accessTokenExpiry(accessToken) ??
    (Number.isFinite(expiresIn) && expiresIn >= 0 ? Math.round(now() + expiresIn * 1000) : null);
  return { accessToken, expiresAt };
}

function field(body: Record<string, unknown>, name: string): string | null {
  const value = body[name];
  return typeof value === 'string' && value !== '' ? value : null;
}

const str = (value: unknown): string | null =>
  typeof value === 'string' && value !== '' ? value : null;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function trimSlash(url: string): string {
  return url.replace(/\/+$/, '');
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  if (error.name === 'TimeoutError') return 'no answer in time';
  return cause?.code ? `${cause.code} (${error.message})` : error.message;
}
