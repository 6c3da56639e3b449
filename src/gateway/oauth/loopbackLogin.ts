import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readIdTokenClaims, type IdentityClaims } from './claims';
import { authorizeUrl as buildAuthorizeUrl, exchangeCode, type TokenSet } from './client';
import {
  CALLBACK_PATH,
  DEFAULT_CALLBACK_PORT,
  DEFAULT_CLIENT_ID,
  DEFAULT_SCOPE,
} from './constants';
import { createPkce, createState } from './pkce';

export interface LoopbackLoginOptions {
  issuer: string;
  clientId?: string;
  /** Default 1455 (the port the public client registered); 0 picks a free one (tests). */
  port?: number;
  scope?: string;
  /** Opens the system browser; the URL is also returned for the user to open by hand. */
  openBrowser?: (url: string) => void;
  /** Default 5 minutes: how long to wait for the browser to come back. */
  timeoutMs?: number;
  extraParams?: Record<string, string>;
  fetchImpl?: typeof fetch;
  now?: () => number;
}

export type LoginResult = TokenSet & IdentityClaims & { accountId: string };

export interface LoopbackLogin {
  authorizeUrl: string;
  redirectUri: string;
  /** Settles once: the tokens and who they belong to, or why the login failed. */
  result: Promise<LoginResult>;
  /** Stops waiting (the result rejects) and frees the port. */
  cancel(): void;
}

const DEFAULT_TIMEOUT_MS = 5 * 60 * 1000;

/**
 * Authorization code + PKCE with a loopback redirect, as public CLI clients do it: a one-shot
 * HTTP server on 127.0.0.1 waits for the browser at `/auth/callback`, checks `state`, exchanges
 * the code and shows a page the user can close. A callback with the wrong state is answered 400
 * and ignored (anyone on this machine can hit the port), so it cannot end the real login.
 */
export async function startLoopbackLogin(opts: LoopbackLoginOptions): Promise<LoopbackLogin> {
  const clientId = opts.clientId ?? DEFAULT_CLIENT_ID;
  const pkce = createPkce();
  const state = createState();
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        error.code === 'EADDRINUSE'
          ? new Error(
              `port ${opts.port ?? DEFAULT_CALLBACK_PORT} is in use (another login in progress?); close it and try again`,
            )
          : error,
      ),
    );
    server.listen(opts.port ?? DEFAULT_CALLBACK_PORT, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  // `localhost`, not 127.0.0.1: the redirect must match the client's registration exactly.
  const redirectUri = `http://localhost:${port}${CALLBACK_PATH}`;
  const url = buildAuthorizeUrl({
    issuer: opts.issuer,
    clientId,
    redirectUri,
    scope: opts.scope ?? DEFAULT_SCOPE,
    challenge: pkce.challenge,
    state,
    extraParams: opts.extraParams,
  });

  let settle!: { resolve: (r: LoginResult) => void; reject: (e: Error) => void };
  const result = new Promise<LoginResult>((resolve, reject) => {
    settle = { resolve, reject };
  });
  let done = false;
  const finish = (outcome: LoginResult | Error): void => {
    if (done) return;
    done = true;
    clearTimeout(timer);
    // Let the page reach the browser, then free the port.
    server.close();
    setImmediate(() => server.closeAllConnections());
    if (outcome instanceof Error) settle.reject(outcome);
    else settle.resolve(outcome);
  };
  const timer = setTimeout(
    () => finish(new Error('the sign-in was not completed in time; start it again')),
    opts.timeoutMs ?? DEFAULT_TIMEOUT_MS,
  );
  // A caller that cancels and never awaits the result must not see an unhandled rejection.
  result.catch(() => {});

  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const target = new URL(req.url ?? '/', 'http://localhost');
    const query = target.searchParams;
    if (target.pathname !== CALLBACK_PATH || done) {
      page(res, 404, 'Not found', 'This address only serves the Atelier sign-in callback.');
      return;
    }
    if (query.get('state') !== state) {
      page(res, 400, 'Sign-in not accepted', 'The sign-in state did not match. Start again.');
      return;
    }
    const error = query.get('error');
    const code = query.get('code');
    if (error || !code) {
      const why = query.get('error_description') ?? error ?? 'no authorization code';
      page(res, 400, 'Sign-in failed', `The issuer said: ${why}. You can close this tab.`);
      finish(new Error(`the sign-in failed: ${why}`));
      return;
    }
    void exchange(code).then(
      (login) => {
        page(res, 200, 'Signed in', 'Atelier is signed in. You can close this tab.');
        finish(login);
      },
      (failure: Error) => {
        page(res, 502, 'Sign-in failed', `${failure.message}. You can close this tab.`);
        finish(failure);
      },
    );
  });

  async function exchange(code: string): Promise<LoginResult> {
    const tokens = await exchangeCode({
      issuer: opts.issuer,
      clientId,
      code,
      redirectUri,
      verifier: pkce.verifier,
      fetchImpl: opts.fetchImpl,
      now: opts.now,
    });
    const claims = readIdTokenClaims(tokens.idToken);
    if (!claims.accountId)
      throw new Error('the id token carries no chatgpt_account_id: not a subscription account');
    return { ...tokens, ...claims, accountId: claims.accountId };
  }

  try {
    opts.openBrowser?.(url);
  } catch {
    // The URL is returned too: the user can open it by hand.
  }
  return {
    authorizeUrl: url,
    redirectUri,
    result,
    cancel: () => finish(new Error('the sign-in was cancelled')),
  };
}

function page(res: ServerResponse, status: number, title: string, text: string): void {
  const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  const html = `<!doctype html><html><head><meta charset="utf-8"><title>${escape(title)}</title></head><body style="font-family:system-ui,sans-serif;margin:4rem auto;max-width:32rem"><h1>${escape(title)}</h1><p>${escape(text)}</p></body></html>`;
  res.writeHead(status, {
    'content-type': 'text/html; charset=utf-8',
    'content-length': Buffer.byteLength(html),
    'cache-control': 'no-store',
    connection: 'close',
  });
  res.end(html);
}
