/**
 * Unsigned JWTs (alg "none"). Clients only read claims (exp, account, plan); the simulator itself
 * never trusts a token's claims, it looks the token up in what it issued.
 */
export const AUTH_CLAIMS = 'https://api.openai.com/auth';
export const PROFILE_CLAIMS = 'https://api.openai.com/profile';

function base64url(value: unknown): string {
  return Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');
}

export function encodeJwt(payload: Record<string, unknown>): string {
  return `${base64url({ alg: 'none', typ: 'JWT' })}.${base64url(payload)}.`;
}

export function decodeJwt(token: string): Record<string, unknown> {
  const part = token.split('.')[1];
  if (!part) throw new Error('not a JWT');
  return JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as Record<string, unknown>;
}
