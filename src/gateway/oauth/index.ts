export { accessTokenExpiry, decodeJwtPayload, readIdTokenClaims } from './claims';
export type { IdentityClaims } from './claims';
export { OAuthError, authorizeUrl, exchangeCode, refreshTokens } from './client';
export type { RefreshedTokens, TokenSet } from './client';
export {
  CALLBACK_PATH,
  DEFAULT_CALLBACK_PORT,
  DEFAULT_CLIENT_ID,
  DEFAULT_ISSUER,
  DEFAULT_SCOPE,
} from './constants';
export { startLoopbackLogin } from './loopbackLogin';
export type { LoginResult, LoopbackLogin, LoopbackLoginOptions } from './loopbackLogin';
export { challengeFor, createPkce, createState } from './pkce';
export type { PkcePair } from './pkce';
export { createTokenManager, toAccountSecret } from './tokenManager';
export type { TokenManagerOptions, TokenSource } from './tokenManager';
