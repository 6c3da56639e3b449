import { ipcMain, shell } from 'electron';
import { IPC } from './channels';
import { assertTrustedSender, InvalidArgumentError } from './dialogs';
import { isAllowedSignInUrl } from './policy';

/** The gateway names sign-ins `login_<hex>`; anything else is refused before asking it. */
const LOGIN_ID = /^login_[0-9a-f]{8,64}$/;

export function parseLoginId(value: unknown): string {
  if (typeof value !== 'string' || !LOGIN_ID.test(value)) {
    throw new InvalidArgumentError('loginId must be the id of a sign-in started by the studio');
  }
  return value;
}

export interface SignInHandlerOptions {
  /** Only frames from the gateway's origin may call the handler. */
  origin: string;
  /** The authorize URL of a sign-in the gateway is waiting on; null for any other id. */
  signInUrl: (loginId: string) => string | null;
  /** The origins sign-ins may be opened at (the gateway's signInIssuers). */
  issuers: () => readonly string[];
}

/**
 * Opens a studio sign-in's authorize page in the system browser. The renderer names the sign-in,
 * never the address: main asks the in-process gateway for it, so a page cannot use this to open
 * arbitrary URLs, and the window itself keeps denying every new window.
 */
export function registerSignInHandler({ origin, signInUrl, issuers }: SignInHandlerOptions): void {
  ipcMain.handle(IPC.openSignIn, async (event, loginId: unknown) => {
    assertTrustedSender(event, origin);
    const id = parseLoginId(loginId);
    const url = signInUrl(id);
    if (url === null) {
      throw new InvalidArgumentError(`no sign-in is waiting under ${id}: start it again`);
    }
    if (!isAllowedSignInUrl(url, issuers())) {
      throw new InvalidArgumentError(
        'sign-ins open only at a known issuer (the provider, an account’s, or the offline ' +
          'simulator) over https or on this machine; add another with ' +
          '`atelier accounts login --issuer URL`',
      );
    }
    await shell.openExternal(url);
  });
}
