import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { AUTH_CLAIMS, PROFILE_CLAIMS, encodeJwt } from './jwt';

export interface Account {
  accountId: string;
  userId: string;
  email: string;
  planType: string;
}

interface AuthCode {
  clientId: string;
  redirectUri: string;
  challenge: string;
  scope: string;
  account: Account;
  expiresAtMs: number;
}

export interface AccessGrant {
  account: Account;
  expiresAtMs: number;
}

export type RefreshState = 'active' | 'reused' | 'expired' | 'invalidated';

interface RefreshGrant {
  account: Account;
  clientId: string;
  scope: string;
  state: RefreshState;
}

export interface TokenResponse {
  access_token: string;
  refresh_token: string;
  id_token: string;
  token_type: 'Bearer';
  expires_in: number;
  scope: string;
}

const CODE_TTL_MS = 10 * 60 * 1000;

function opaque(prefix: string): string {
  return `${prefix}${randomBytes(24).toString('base64url')}`;
}

export function pkceChallenge(verifier: string): string {
  return createHash('sha256').update(verifier, 'ascii').digest('base64url');
}

/** In-memory identity provider state: accounts, one-time codes and issued tokens. */
export class OAuthStore {
  private readonly accounts = new Map<string, Account>();
  private readonly codes = new Map<string, AuthCode>();
  private readonly access = new Map<string, AccessGrant>();
  private readonly refresh = new Map<string, RefreshGrant>();
  private nextUser = 1;

  constructor(
    private readonly defaultPlan: string,
    private readonly accessTtlSeconds: number,
  ) {}

  /** The same email logs into the same account; no email means a fresh account per login. */
  account(email: string | undefined, planType: string | undefined): Account {
    const key = email ?? `user${this.nextUser++}@simulator.local`;
    let account = this.accounts.get(key);
    if (!account) {
      account = {
        accountId: randomUUID(),
        userId: `user-${randomBytes(8).toString('hex')}`,
        email: key,
        planType: planType ?? this.defaultPlan,
      };
      this.accounts.set(key, account);
    } else if (planType) {
      account.planType = planType;
    }
    return account;
  }

  issueCode(code: Omit<AuthCode, 'expiresAtMs'>): string {
    const value = opaque('ac_');
    this.codes.set(value, { ...code, expiresAtMs: Date.now() + CODE_TTL_MS });
    return value;
  }

  /** Codes are single use: looking one up spends it, whatever happens next. */
  takeCode(value: string): AuthCode | undefined {
    const code = this.codes.get(value);
    this.codes.delete(value);
    return code && code.expiresAtMs > Date.now() ? code : undefined;
  }

  refreshGrant(token: string): RefreshGrant | undefined {
    return this.refresh.get(token);
  }

  setRefreshState(token: string, state: RefreshState): void {
    const grant = this.refresh.get(token);
    if (grant) grant.state = state;
  }

  accessGrant(token: string): AccessGrant | undefined {
    return this.access.get(token);
  }

  issueTokens(account: Account, clientId: string, scope: string, issuer: string): TokenResponse {
    const nowMs = Date.now();
    const iat = Math.floor(nowMs / 1000);
    const expiresAtMs = nowMs + this.accessTtlSeconds * 1000;
    const exp = Math.floor(expiresAtMs / 1000);
    const auth = {
      chatgpt_account_id: account.accountId,
      chatgpt_plan_type: account.planType,
      chatgpt_user_id: account.userId,
      user_id: account.userId,
    };
    const access_token = encodeJwt({
      iss: issuer,
      aud: ['https://api.openai.com/v1'],
      sub: account.userId,
      client_id: clientId,
      iat,
      exp,
      jti: randomUUID(),
      scp: scope.split(' ').filter(Boolean),
      [AUTH_CLAIMS]: auth,
      [PROFILE_CLAIMS]: { email: account.email, email_verified: true },
    });
    const id_token = encodeJwt({
      iss: issuer,
      aud: [clientId],
      sub: account.userId,
      iat,
      exp,
      email: account.email,
      email_verified: true,
      [AUTH_CLAIMS]: auth,
    });
    const refresh_token = opaque('rt_');
    this.access.set(access_token, { account, expiresAtMs });
    this.refresh.set(refresh_token, { account, clientId, scope, state: 'active' });
    return {
      access_token,
      refresh_token,
      id_token,
      token_type: 'Bearer',
      expires_in: this.accessTtlSeconds,
      scope,
    };
  }
}
