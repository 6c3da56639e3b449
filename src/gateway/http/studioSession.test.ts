import { describe, expect, it } from 'vitest';
import {
  LOGIN_TOKEN_TTL_MS,
  SESSION_IDLE_MS,
  createStudioSessions,
  readCookie,
} from './studioSession';

function clock(start = 1_000_000) {
  let now = start;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

describe('studio sessions', () => {
  it('a login token works once', () => {
    const sessions = createStudioSessions();
    const token = sessions.issueLoginToken();
    const session = sessions.redeem(token);
    expect(session).toMatch(/^[\w-]{43}$/);
    expect(sessions.verify(session!)).toBe(true);
    expect(sessions.redeem(token)).toBeNull();
  });

  it('a login token expires after 10 minutes', () => {
    const time = clock();
    const sessions = createStudioSessions(time.now);
    const fresh = sessions.issueLoginToken();
    const stale = sessions.issueLoginToken();
    time.advance(LOGIN_TOKEN_TTL_MS);
    expect(sessions.redeem(fresh)).not.toBeNull();
    time.advance(1);
    expect(sessions.redeem(stale)).toBeNull();
  });

  it('a session ends after 30 days without use, and each use restarts the clock', () => {
    const time = clock();
    const sessions = createStudioSessions(time.now);
    const session = sessions.redeem(sessions.issueLoginToken())!;
    time.advance(SESSION_IDLE_MS - 1);
    expect(sessions.verify(session)).toBe(true);
    time.advance(SESSION_IDLE_MS - 1);
    expect(sessions.verify(session)).toBe(true);
    time.advance(SESSION_IDLE_MS + 1);
    expect(sessions.verify(session)).toBe(false);
  });

  it('knows only what it issued: a token is not a session, nor the other way round', () => {
    const sessions = createStudioSessions();
    const token = sessions.issueLoginToken();
    expect(sessions.verify(token)).toBe(false);
    const session = sessions.redeem(token)!;
    expect(sessions.redeem(session)).toBeNull();
    expect(sessions.verify('')).toBe(false);
    expect(sessions.verify('x'.repeat(10_000))).toBe(false);
  });
});

describe('readCookie', () => {
  it('finds one cookie among others', () => {
    expect(readCookie('a=1; atelier_session=abc-_1; b=2', 'atelier_session')).toBe('abc-_1');
    expect(readCookie('xatelier_session=1', 'atelier_session')).toBeNull();
    expect(readCookie(undefined, 'atelier_session')).toBeNull();
  });
});
