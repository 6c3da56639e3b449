import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import { STUDIO_HEADER, studioSessionCookie } from '../../shared/admin';
import { ERROR_CODES, ERROR_TYPES } from '../../shared/errors';
import { ApiError } from '../core/errors';
import type { SqlEngine } from '../storage/engine';

/** A login link works once, for 10 minutes. */
export const LOGIN_TOKEN_TTL_MS = 10 * 60_000;
/** A session ends after 30 days without use. */
export const SESSION_IDLE_MS = 30 * 24 * 60 * 60_000;
/**
 * A session's last use is written at most this often: the idle clock is exact to a minute, and a
 * busy studio does not write a row per request.
 */
export const SESSION_TOUCH_MS = 60_000;

/**
 * The studio's sessions. A login token, printed by `atelier serve` or handed to the Electron
 * window, becomes an HttpOnly cookie; only the studio's own origin can then use it, so no other
 * local process or web page can act as the studio. Both are kept in the database as SHA-256
 * digests, so every instance of a team gateway accepts what another issued and a restart keeps
 * the sessions; neither the database nor a heap dump holds a usable secret, and the digests are
 * compared in constant time.
 */
export interface StudioSessions {
  issueLoginToken(): Promise<string>;
  /** Exchanges a login token for a new session id; null when unknown, used or expired. */
  redeem(token: string): Promise<string | null>;
  /** Whether the session is live; each use restarts its idle clock. */
  verify(sessionId: string): Promise<boolean>;
  /** When a live session began (its login), ms; null when unknown or expired. */
  startedAt(sessionId: string): Promise<number | null>;
}

interface Row {
  digest: string;
  at: number;
  since: number;
}

const digestOf = (secret: string) => createHash('sha256').update(secret).digest();
const plausible = (secret: unknown): secret is string =>
  typeof secret === 'string' && secret.length > 0 && secret.length <= 100;

export function createStudioSessions(
  engine: SqlEngine,
  now: () => number = Date.now,
): StudioSessions {
  const prune = () =>
    engine.run(
      `DELETE FROM studio_sessions
       WHERE (kind = 'token' AND at < ?) OR (kind = 'session' AND at < ?)`,
      [now() - LOGIN_TOKEN_TTL_MS, now() - SESSION_IDLE_MS],
    );
  /** The live session's row for `sessionId`, or null. */
  const liveSession = async (sessionId: string): Promise<Row | null> => {
    if (!plausible(sessionId)) return null;
    const digest = digestOf(sessionId);
    const row = await engine.get<Row>(
      `SELECT digest, at, since FROM studio_sessions WHERE digest = ? AND kind = 'session'`,
      [digest.toString('hex')],
    );
    // The lookup is by digest, whose timing says nothing about the secret; the comparison of
    // digests is constant-time and stays the real check should the lookup ever change.
    if (!row || !timingSafeEqual(Buffer.from(row.digest, 'hex'), digest)) return null;
    return now() - row.at > SESSION_IDLE_MS ? null : row;
  };

  return {
    async issueLoginToken() {
      await prune();
      const token = randomBytes(32).toString('base64url');
      const at = now();
      await engine.run(
        `INSERT INTO studio_sessions (digest, kind, at, since) VALUES (?, 'token', ?, ?)`,
        [digestOf(token).toString('hex'), at, at],
      );
      return token;
    },
    async redeem(token) {
      if (!plausible(token)) return null;
      const sessionId = randomBytes(32).toString('base64url');
      const redeemed = await engine.transaction(async (tx) => {
        // Deleting the token is the decision: of two instances redeeming it at once, one does.
        const used = await tx.run(
          `DELETE FROM studio_sessions WHERE digest = ? AND kind = 'token' AND at >= ?`,
          [digestOf(token).toString('hex'), now() - LOGIN_TOKEN_TTL_MS],
        );
        if (used.changes !== 1) return false;
        const at = now();
        await tx.run(
          `INSERT INTO studio_sessions (digest, kind, at, since) VALUES (?, 'session', ?, ?)`,
          [digestOf(sessionId).toString('hex'), at, at],
        );
        return true;
      });
      if (!redeemed) return null;
      await prune();
      return sessionId;
    },
    async verify(sessionId) {
      const row = await liveSession(sessionId);
      if (!row) return false;
      const at = now();
      if (at - row.at >= SESSION_TOUCH_MS)
        await engine.run('UPDATE studio_sessions SET at = ? WHERE digest = ? AND at < ?', [
          at,
          row.digest,
          at,
        ]);
      return true;
    },
    async startedAt(sessionId) {
      return (await liveSession(sessionId))?.since ?? null;
    },
  };
}

/** One cookie's value from a Cookie header (no cookie library for one name). */
export function readCookie(header: string | undefined, name: string): string | null {
  if (!header) return null;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0 || part.slice(0, eq).trim() !== name) continue;
    return part.slice(eq + 1).trim();
  }
  return null;
}

export interface StudioSessionGate {
  /**
   * A request from the studio itself: a live session cookie and `x-atelier-studio: 1` (which no
   * page of another origin can send without a CORS preflight we never grant), from no origin or
   * our own.
   */
  hasStudioSession(req: Request): Promise<boolean>;
  /** Guards /api/admin/*. `sameOriginReads` also admits GETs a browser marks same-origin. */
  require(opts?: {
    sameOriginReads?: boolean;
  }): (req: Request, res: Response, next: NextFunction) => Promise<void>;
  /** GET /login?token=...: sets the session cookie and sends the browser to the studio. */
  login(req: Request, res: Response): Promise<void>;
  /** When the request's studio session began (every tab of one login shares it), or null. */
  sessionStartedAt(req: Request): Promise<number | null>;
}

/** The port the request came in on names its cookie: one studio per port, each its own session. */
const cookieName = (req: Request) => studioSessionCookie(req.socket.localPort ?? 0);

export function studioSessionGate(
  sessions: StudioSessions,
  ownOrigins: ReadonlySet<string>,
): StudioSessionGate {
  const hasSession = async (req: Request) => {
    const origin = req.headers.origin;
    if (origin !== undefined && !ownOrigins.has(origin)) return false;
    const cookie = readCookie(req.headers.cookie, cookieName(req));
    return cookie !== null && (await sessions.verify(cookie));
  };
  const hasHeader = (req: Request) => req.headers[STUDIO_HEADER] === '1';
  // `Sec-Fetch-Site` is set by the browser itself and no page can forge it: an <img> or
  // EventSource of the studio (which cannot add headers) says `same-origin`; any other page,
  // even one on another port of this host, says `same-site` or `cross-site`.
  const sameOriginRead = (req: Request) =>
    (req.method === 'GET' || req.method === 'HEAD') &&
    req.headers['sec-fetch-site'] === 'same-origin';

  return {
    hasStudioSession: async (req) => hasHeader(req) && (await hasSession(req)),
    async sessionStartedAt(req) {
      const cookie = readCookie(req.headers.cookie, cookieName(req));
      return cookie === null ? null : sessions.startedAt(cookie);
    },
    require(opts = {}) {
      return async (req, _res, next) => {
        const marked = hasHeader(req) || (opts.sameOriginReads === true && sameOriginRead(req));
        if (marked && (await hasSession(req))) {
          next();
          return;
        }
        next(
          new ApiError(
            401,
            'This needs the studio session: open the login link printed by `atelier serve` (or use the desktop app).',
            { type: ERROR_TYPES.authentication, code: ERROR_CODES.studioSessionRequired },
          ),
        );
      };
    },
    async login(req, res) {
      const token = typeof req.query.token === 'string' ? req.query.token : '';
      const sessionId = await sessions.redeem(token);
      if (sessionId === null) {
        throw new ApiError(
          401,
          'This login link is unknown, already used or expired (links work once, for 10 minutes). Press Enter in the terminal running `atelier serve` for a new one.',
          { type: ERROR_TYPES.authentication, code: ERROR_CODES.studioLoginInvalid },
        );
      }
      // No `Secure`: the studio is served over http://127.0.0.1. No Max-Age: the cookie lasts
      // the browser's session; the gateway ends the session after 30 idle days.
      res.setHeader(
        'set-cookie',
        `${cookieName(req)}=${sessionId}; HttpOnly; SameSite=Strict; Path=/`,
      );
      res.setHeader('cache-control', 'no-store');
      // The token is in this URL: do not hand it on in a Referer.
      res.setHeader('referrer-policy', 'no-referrer');
      res.redirect(303, '/');
    },
  };
}
