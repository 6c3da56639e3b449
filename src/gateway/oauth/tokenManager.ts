import type { AccountSecret, SecretStore } from '../secrets/types';
import { UpstreamError } from '../core/upstreamError';
import { OAuthError, refreshTokens, type TokenSet } from './client';
import { DEFAULT_CLIENT_ID } from './constants';

type OAuthSecret = Extract<AccountSecret, { type: 'oauth' }>;

/** What an adapter needs: a usable access token, and a way out of an upstream 401. */
export interface TokenSource {
  /** The stored access token, refreshed first when it expires within the margin (5 min). */
  accessToken(): Promise<string>;
  /**
   * A new access token; call once when the upstream answered 401. Pass the token that was
   * rejected: when another caller has refreshed since, its token is returned without a refresh.
   */
  forceRefresh(rejected?: string): Promise<string>;
}

export interface TokenManagerOptions {
  /** An AccountRecord fits; `issuer` and `secretName` must be set for an OAuth account. */
  account: { id: string; name?: string; issuer: string | null; secretName: string | null };
  secrets: SecretStore;
  clientId?: string;
  now?: () => number;
  /** The sign-in is gone (only a new login helps): disable the account with this reason. */
  onPermanentFailure: (reason: string) => void;
  fetchImpl?: typeof fetch;
  refreshMarginMs?: number;
  /** Problems that do not fail the call (a keychain write that will be retried). */
  log?: (line: string) => void;
  /**
   * Runs a refresh while no other instance of a team gateway refreshes this account (a database
   * lock, accounts/refreshLock.ts). Within one process the manager already shares one refresh;
   * without this, two instances would each spend the same rotating refresh token.
   */
  exclusive?: <T>(work: () => Promise<T>) => Promise<T>;
}

/** What a login stores under the account's secret name (the CLI's `accounts login`). */
export function toAccountSecret(tokens: TokenSet): AccountSecret {
  return {
    type: 'oauth',
    accessToken: tokens.accessToken,
    refreshToken: tokens.refreshToken,
    idToken: tokens.idToken,
    expiresAt: tokens.expiresAt,
  };
}

const REFRESH_MARGIN_MS = 5 * 60 * 1000;

/**
 * Keeps one account's OAuth tokens fresh. Concurrent callers share one in-flight refresh (with a
 * rotating refresh token, two parallel refreshes would spend the same token twice and the second
 * would read as `refresh_token_reused`, a permanent failure). Rotated tokens are written back to
 * the SecretStore at once, since the old refresh token is spent the moment the issuer answers.
 */
export function createTokenManager(opts: TokenManagerOptions): TokenSource {
  const now = opts.now ?? Date.now;
  const margin = opts.refreshMarginMs ?? REFRESH_MARGIN_MS;
  const label = opts.account.name ?? opts.account.id;
  let current: OAuthSecret | null = null;
  let inflight: Promise<string> | null = null;
  let unsaved = false;
  /** Set after a permanent failure: no more calls to the issuer until a new sign-in is stored. */
  let failedWith: string | null = null;

  async function readStored(): Promise<OAuthSecret | null> {
    const { secretName } = opts.account;
    if (!secretName) return null;
    let text: string | null;
    try {
      text = await opts.secrets.get(secretName);
    } catch (error) {
      // A locked or missing keychain is not the account's fault: no disabling, say what broke.
      throw new UpstreamError({
        kind: 'network',
        message: `the ${opts.secrets.kind} could not be read: ${error instanceof Error ? error.message : String(error)}`,
      });
    }
    if (!text) return null;
    try {
      const value = JSON.parse(text) as Partial<OAuthSecret>;
      if (value.type !== 'oauth' || !value.accessToken || !value.refreshToken) return null;
      return {
        type: 'oauth',
        accessToken: value.accessToken,
        refreshToken: value.refreshToken,
        idToken: value.idToken ?? '',
        expiresAt: typeof value.expiresAt === 'number' ? value.expiresAt : null,
      };
    } catch {
      return null;
    }
  }

  async function load(): Promise<OAuthSecret> {
    if (failedWith !== null) {
      // A new sign-in (the CLI's `accounts login`) stores new tokens: pick them up.
      const stored = await readStored();
      if (!stored || stored.refreshToken === current?.refreshToken) throw permanent(failedWith);
      failedWith = null;
      current = stored;
    }
    if (!current) {
      const stored = await readStored();
      // Checked after the await: a refresh that finished meanwhile must not be overwritten.
      current ??= stored;
    }
    if (!current) throw permanent(`No sign-in is stored for account '${label}'. Sign in again.`);
    return current;
  }

  async function save(secret: OAuthSecret): Promise<void> {
    if (!opts.account.secretName) return;
    try {
      await opts.secrets.set(opts.account.secretName, JSON.stringify(secret));
      unsaved = false;
    } catch (error) {
      // The new tokens work from memory; the write is retried on the next call.
      unsaved = true;
      opts.log?.(`could not store refreshed tokens for account '${label}': ${String(error)}`);
    }
  }

  function permanent(reason: string): UpstreamError {
    if (failedWith === null) {
      failedWith = reason;
      opts.onPermanentFailure(reason);
    }
    return new UpstreamError({ kind: 'unauthorized', message: reason });
  }

  async function refreshWith(secret: OAuthSecret): Promise<string> {
    const issuer = opts.account.issuer;
    if (!issuer) throw permanent(`Account '${label}' has no OAuth issuer configured.`);
    const result = await refreshTokens({
      issuer,
      clientId: opts.clientId ?? DEFAULT_CLIENT_ID,
      refreshToken: secret.refreshToken,
      fetchImpl: opts.fetchImpl,
      now,
    });
    const next: OAuthSecret = {
      type: 'oauth',
      accessToken: result.accessToken,
      refreshToken: result.refreshToken,
      idToken: result.idToken ?? secret.idToken,
      expiresAt: result.expiresAt,
    };
    current = next;
    await save(next);
    return next.accessToken;
  }

  async function doRefresh(): Promise<string> {
    const held = await load();
    if (!opts.exclusive) return refreshFrom(held);
    return opts.exclusive(async () => {
      // Another instance may have refreshed while this one waited for the lock: its tokens are
      // in the shared store, and its refresh token is the only one still good.
      const stored = await readStored();
      if (!stored || stored.refreshToken === held.refreshToken) return refreshFrom(held);
      current = stored;
      if (stored.expiresAt === null || stored.expiresAt - now() > margin) return stored.accessToken;
      return refreshFrom(stored);
    });
  }

  async function refreshFrom(secret: OAuthSecret): Promise<string> {
    try {
      return await refreshWith(secret);
    } catch (error) {
      if (error instanceof UpstreamError) throw error;
      if (!(error instanceof OAuthError) || !error.permanent) throw transient(error);
      // Another process may have stored newer tokens (a new sign-in, another gateway).
      const stored = await readStored().catch(() => null);
      if (stored && stored.refreshToken !== secret.refreshToken) {
        current = stored;
        if (stored.expiresAt !== null && stored.expiresAt - now() > margin)
          return stored.accessToken;
        try {
          return await refreshWith(stored);
        } catch (second) {
          if (!(second instanceof OAuthError) || !second.permanent) throw transient(second);
          throw permanent(reasonFor(second, label));
        }
      }
      throw permanent(reasonFor(error, label));
    }
  }

  function refresh(): Promise<string> {
    inflight ??= doRefresh().finally(() => {
      inflight = null;
    });
    return inflight;
  }

  return {
    async accessToken() {
      if (inflight) return inflight;
      const secret = await load();
      if (unsaved) await save(secret);
      if (secret.expiresAt !== null && secret.expiresAt - now() <= margin) return refresh();
      return secret.accessToken;
    },
    async forceRefresh(rejected) {
      if (inflight) return inflight;
      // A burst of 401s from parallel calls made with the old token needs only one refresh.
      if (
        rejected !== undefined &&
        current &&
        failedWith === null &&
        current.accessToken !== rejected
      )
        return current.accessToken;
      return refresh();
    },
  };
}

function reasonFor(error: OAuthError, label: string): string {
  const again = `Sign in to account '${label}' again.`;
  switch (error.code) {
    case 'refresh_token_expired':
      return `The sign-in expired (refresh_token_expired). ${again}`;
    case 'refresh_token_reused':
      return `The refresh token was already used (refresh_token_reused): another program may share these tokens. ${again}`;
    case 'refresh_token_invalidated':
      return `The sign-in was revoked (refresh_token_invalidated), for example by a sign-out or password change. ${again}`;
    default:
      return `The issuer refused to refresh the sign-in (${error.message}). ${again}`;
  }
}

/** A refresh that may work later: the account is fine, this call is not. */
function transient(error: unknown): UpstreamError {
  if (!(error instanceof OAuthError)) {
    const message = error instanceof Error ? error.message : String(error);
    return new UpstreamError({ kind: 'network', message: `token refresh failed: ${message}` });
  }
  if (error.status === null)
    return new UpstreamError({
      kind: 'network',
      message: `token refresh failed: ${error.message}`,
    });
  if (error.status === 429)
    return new UpstreamError({
      kind: 'rate_limited',
      retryAfterMs: null,
      message: `token refresh failed: ${error.message}`,
    });
  return new UpstreamError({
    kind: 'http',
    status: error.status >= 500 ? error.status : 502,
    code: error.code ?? 'token_refresh_failed',
    message: `token refresh failed: ${error.message}`,
    param: null,
    type: null,
  });
}
