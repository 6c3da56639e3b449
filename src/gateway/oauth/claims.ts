/**
 * Reads claims from the issuer's JWTs. No signature check: the tokens come straight from the
 * issuer's token endpoint over TLS, and we only read our own identity from them (the upstream
 * checks the access token itself on every call). Never use this on a token from anyone else.
 */
export const AUTH_CLAIMS = 'https://api.openai.com/auth';
const PROFILE_CLAIMS = 'https://api.openai.com/profile';

export interface IdentityClaims {
  /** `chatgpt_account_id`: sent as the `chatgpt-account-id` header on every upstream call. */
  accountId: string | null;
  /** `chatgpt_plan_type` (`free`, `plus`, `pro`, `team`, ...): the account's natural tier. */
  planType: string | null;
  email: string | null;
}

/** The payload of a JWT, or null when the token is not a readable JWT. */
export function decodeJwtPayload(token: string): Record<string, unknown> | null {
  const part = token.split('.')[1];
  if (!part) return null;
  try {
    const value: unknown = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

const str = (value: unknown): string | null =>
  typeof value === 'string' && value !== '' ? value : null;

const record = (value: unknown): Record<string, unknown> =>
  typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};

export function readIdTokenClaims(idToken: string): IdentityClaims {
  const payload = decodeJwtPayload(idToken) ?? {};
  const auth = record(payload[AUTH_CLAIMS]);
  return {
    accountId: str(auth.chatgpt_account_id),
    planType: str(auth.chatgpt_plan_type),
    email: str(payload.email) ?? str(record(payload[PROFILE_CLAIMS]).email),
  };
}

/** The access token's `exp` in ms since the epoch, or null when it carries none. */
export function accessTokenExpiry(accessToken: string): number | null {
  const exp = decodeJwtPayload(accessToken)?.exp;
  return typeof exp === 'number' && Number.isFinite(exp) ? Math.round(exp * 1000) : null;
}
