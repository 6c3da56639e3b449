/**
 * The OAuth client Atelier signs in as, in one place. Subscription accounts are reached through
 * the provider's public CLI client (a public PKCE client: no secret), whose registered redirect is
 * `http://localhost:1455/auth/callback`; any other client id or redirect is refused by the real
 * issuer. Overridable everywhere it is used (settings, tests against the simulator).
 */
export const DEFAULT_CLIENT_ID = 'app_EMoamEEZ73f0CkXaXp7hrann';

/** The real issuer; accounts store their own (the simulator's URL in tests). */
export const DEFAULT_ISSUER = 'https://auth.openai.com';

/** `offline_access` is what makes the issuer hand out a refresh token. */
export const DEFAULT_SCOPE = 'openid profile email offline_access';

export const DEFAULT_CALLBACK_PORT = 1455;
export const CALLBACK_PATH = '/auth/callback';
