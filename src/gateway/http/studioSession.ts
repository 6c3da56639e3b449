import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import { STUDIO_HEADER, studioSessionCookie } from '../../shared/admin';
import { ERROR_CODES, ERROR_TYPES } from '../../shared/errors';
import { ApiError } from '../core/errors';

/** A login link works once, for 10 minutes. */
export const LOGIN_TOKEN_TTL_MS = 10 * 60_000;
/** A session ends after 30 days without use (and with the process: sessions live in memory). */
export const SESSION_IDLE_MS = 30 * 24 * 60 * 60_000;

/**
 * The studio's sessions. A login token, printed by `atelier serve` or handed to the Electron
 * window, becomes an HttpOnly cookie; only the studio's own origin can then use it, so no other
 * local process or web page can act as the studio. Both are kept in memory as SHA-256 digests:
 * a heap dump shows no usable secret, and lookups compare digests in constant time.
 */
export interface StudioSessions {
  issueLoginToken(): string;
  /** Exchanges a login token for a new session id; null when unknown, used or expired. */
  redeem(token: string): string | null;
  /** Whether the session is live; each use restarts its idle clock. */
  verify(sessionId: string): boolean;
  /** When a live session began (its login), ms; null when unknown or expired. */
  startedAt(sessionId: string): number | null;
}

interface Entry {
  digest: Buffer;
  /** Issued (tokens) or last used (sessions), ms. */
  at: number;
  /** When it was made: a session's start holds its session budget for every tab (issue 22). */
  since: number;
}

export function createStudioSessions(now: () => number = Date.now): StudioSessions {
  const tokens = new Map<string, Entry>();
  const sessions = new Map<string, Entry>();

  const add = (store: Map<string, Entry>, secret: string) => {
    const digest = createHash('sha256').update(secret).digest();
    store.set(digest.toString('hex'), { digest, at: now(), since: now() });
  };
  /** The live entry's key for `secret`, or null; drops it when it has expired. */
  const find = (store: Map<string, Entry>, secret: string, ttlMs: number): string | null => {
    const digest = createHash('sha256').update(secret).digest();
    const key = digest.toString('hex');
    const entry = store.get(key);
    // The lookup is by digest, whose timing says nothing about the secret; the comparison of
    // digests is constant-time and stays the real check should the lookup ever change.
    if (!entry || !timingSafeEqual(entry.digest, digest)) return null;
    if (now() - entry.at > ttlMs) {
      store.delete(key);
      return null;
    }
    return key;
  };
  const prune = (store: Map<string, Entry>, ttlMs: number) => {
    for (const [key, entry] of store) if (now() - entry.at > ttlMs) store.delete(key);
  };
  const plausible = (secret: unknown): secret is string =>
    typeof secret === 'string' && secret.length > 0 && secret.length <= 100;

  return {
    issueLoginToken() {
      prune(tokens, LOGIN_TOKEN_TTL_MS);
      const token = randomBytes(32).toString('base64url');
      add(tokens, token);
      return token;
    },
    redeem(token) {
      if (!plausible(token)) return null;
      const key = find(tokens, token, LOGIN_TOKEN_TTL_MS);
      if (key === null) return null;
      tokens.delete(key);
      prune(sessions, SESSION_IDLE_MS);
      const sessionId = randomBytes(32).toString('base64url');
      add(sessions, sessionId);
      return sessionId;
    },
    verify(sessionId) {
      if (!plausible(sessionId)) return false;
      const key = find(sessions, sessionId, SESSION_IDLE_MS);
      if (key === null) return false;
      sessions.get(key)!.at = now();
      return true;
    },
    startedAt(sessionId) {
      if (!plausible(sessionId)) return null;
      const key = find(sessions, sessionId, SESSION_IDLE_MS);
      return key === null ? null : sessions.get(key)!.since;
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
  hasStudioSession(req: Request): boolean;
  /** Guards /api/admin/*. `sameOriginReads` also admits GETs a browser marks same-origin. */
  require(opts?: {
    sameOriginReads?: boolean;
  }): (req: Request, res: Response, next: NextFunction) => void;
  /** GET /login?token=...: sets the session cookie and sends the browser to the studio. */
  login(req: Request, res: Response): void;
  /** When the request's studio session began (every tab of one login shares it), or null. */
  sessionStartedAt(req: Request): number | null;
}

/** The port the request came in on names its cookie: one studio per port, each its own session. */
const cookieName = (req: Request) => studioSessionCookie(req.socket.localPort ?? 0);

export function studioSessionGate(
  sessions: StudioSessions,
  ownOrigins: ReadonlySet<string>,
): StudioSessionGate {
  const hasSession = (req: Request) => {
    const origin = req.headers.origin;
    if (origin !== undefined && !ownOrigins.has(origin)) return false;
    const cookie = readCookie(req.headers.cookie, cookieName(req));
    return cookie !== null && sessions.verify(cookie);
  };
  const hasHeader = (req: Request) => req.headers[STUDIO_HEADER] === '1';
  // `Sec-Fetch-Site` is set by the browser itself and no page can forge it: an <img> or
  // EventSource of the studio (which cannot add headers) says `same-origin`; any other page,
  // even one on another port of this host, says `same-site` or `cross-site`.
  const sameOriginRead = (req: Request) =>
    (req.method === 'GET' || req.method === 'HEAD') &&
    req.headers['sec-fetch-site'] === 'same-origin';

  return {
    hasStudioSession: (req) => hasHeader(req) && hasSession(req),
    sessionStartedAt(req) {
      const cookie = readCookie(req.headers.cookie, cookieName(req));
      return cookie === null ? null : sessions.startedAt(cookie);
    },
    require(opts = {}) {
      return (req, _res, next) => {
        const marked = hasHeader(req) || (opts.sameOriginReads === true && sameOriginRead(req));
        if (marked && hasSession(req)) {
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
    login(req, res) {
      const token = typeof req.query.token === 'string' ? req.query.token : '';
      const sessionId = sessions.redeem(token);
      if (sessionId === null) {
        throw new ApiError(
          401,
          'This login link is unknown, already used or expired (links work once, for 10 minutes). Press Enter in the terminal running `atelier serve` for a new one.',
          { type: ERROR_TYPES.authentication, code: ERROR_CODES.studioLoginInvalid },
        );
      }
      // No `Secure`: the studio is served over http://127.0.0.1. No Max-Age: sessions end with
      // the server process anyway.
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
