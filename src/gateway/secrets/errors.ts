/**
 * Errors from the secret stores. None of them ever carries a secret: messages name the secret (its
 * key in the store) at most, never its value, so they are safe to log and to show.
 */
export type SecretStoreErrorCode =
  /** No usable OS keychain (no Secret Service on D-Bus, locked, no desktop session...). */
  | 'keychain_unavailable'
  /** The keychain refused one operation (a value too long for the platform, two matching entries). */
  | 'keychain_error'
  /**
   * The encrypted file did not authenticate (wrong passphrase, or the file was changed), or a
   * secret's database row did not (changed, or moved to another secret's name).
   */
  | 'decrypt_failed'
  /** A secret in the database was sealed under another key than the one this process was given. */
  | 'wrong_key'
  /** The encrypted file is not one of ours, or is truncated. */
  | 'bad_file'
  /** The environment asks for a store that cannot be opened as asked. */
  | 'bad_config'
  /** A stored value is not what its reader expects (e.g. not an account secret). */
  | 'bad_secret';

export class SecretStoreError extends Error {
  readonly code: SecretStoreErrorCode;

  constructor(code: SecretStoreErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'SecretStoreError';
    this.code = code;
  }
}

/**
 * The keychain cannot be used. Atelier refuses rather than fall back to anything weaker, so the
 * message must tell the user how to get a keychain, or how to opt into the encrypted file.
 */
export class KeychainUnavailableError extends SecretStoreError {
  constructor(detail: string, platform: NodeJS.Platform = process.platform, cause?: unknown) {
    super('keychain_unavailable', keychainUnavailableMessage(detail, platform), { cause });
    this.name = 'KeychainUnavailableError';
  }
}

const OPT_IN =
  'Or opt into an encrypted file instead: set ATELIER_SECRET_STORE=encrypted-file and ' +
  'ATELIER_SECRET_PASSPHRASE (or turn on the encrypted-file option in Settings).';

const FIX: Partial<Record<NodeJS.Platform, string>> = {
  linux:
    'Atelier keeps upstream credentials in the Secret Service. Install and run gnome-keyring ' +
    "(e.g. `apt-get install gnome-keyring`) or enable KeePassXC's Secret Service integration, " +
    'unlock the keyring if it is locked, or start Atelier inside a desktop session (a D-Bus ' +
    'session bus must be reachable through DBUS_SESSION_BUS_ADDRESS).',
  darwin:
    'Atelier keeps upstream credentials in the macOS Keychain. Unlock the login keychain ' +
    '(Keychain Access) and allow Atelier when macOS asks; over SSH, run `security ' +
    'unlock-keychain` first.',
  win32:
    'Atelier keeps upstream credentials in the Windows Credential Manager. Run Atelier as a ' +
    'signed-in user with a loaded profile (not as a service account or through a restricted ' +
    'remote shell).',
};

export function keychainUnavailableMessage(detail: string, platform: NodeJS.Platform): string {
  const fix = FIX[platform] ?? FIX.linux;
  return `The OS keychain is not available (${detail}). ${fix} ${OPT_IN}`;
}
