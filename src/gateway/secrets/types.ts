/**
 * Where upstream credentials live. The OS keychain is the default; an encrypted file exists only
 * where the user explicitly opted into it. Secrets never go to SQLite, logs or the renderer.
 */
export interface SecretStore {
  /**
   * 'keychain' (OS Secret Service / Keychain / Credential Manager), 'encrypted-file', or
   * 'database' (sealed rows in the gateway's own database: a server without a keychain).
   */
  readonly kind: 'keychain' | 'encrypted-file' | 'database' | 'memory';
  get(name: string): Promise<string | null>;
  set(name: string, value: string): Promise<void>;
  delete(name: string): Promise<void>;
}

/** What is stored under an account's secret name, as JSON. */
export type AccountSecret =
  | { type: 'api_key'; apiKey: string }
  | {
      type: 'oauth';
      accessToken: string;
      refreshToken: string;
      idToken: string;
      /** ms since epoch; from the access token's JWT `exp` (or `expires_in`). */
      expiresAt: number | null;
    };
