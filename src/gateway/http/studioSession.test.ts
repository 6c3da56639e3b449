import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ENGINES, testStorage } from '../storage/testing';
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

describe.each(ENGINES)('studio sessions on %s', (kind) => {
  it('a login token works once', async () => {
    const { engine } = await testStorage(kind);
    const sessions = createStudioSessions(engine);
    const token = await sessions.issueLoginToken();
    const session = await sessions.redeem(token);
    expect(session).toMatch(/^[\w-]{43}$/);
    expect(await sessions.verify(session!)).toBe(true);
    expect(await sessions.redeem(token)).toBeNull();
  });

  it('a login token expires after 10 minutes', async () => {
    const { engine } = await testStorage(kind);
    const time = clock();
    const sessions = createStudioSessions(engine, time.now);
    const fresh = await sessions.issueLoginToken();
    const stale = await sessions.issueLoginToken();
    time.advance(LOGIN_TOKEN_TTL_MS);
    expect(await sessions.redeem(fresh)).not.toBeNull();
    time.advance(1);
    expect(await sessions.redeem(stale)).toBeNull();
  });

  it('a session ends after 30 days without use, and each use restarts the clock', async () => {
    const { engine } = await testStorage(kind);
    const time = clock();
    const sessions = createStudioSessions(engine, time.now);
    const session = (await sessions.redeem(await sessions.issueLoginToken()))!;
    const since = time.now();
    time.advance(SESSION_IDLE_MS - 1);
    expect(await sessions.verify(session)).toBe(true);
    time.advance(SESSION_IDLE_MS - 1);
    expect(await sessions.verify(session)).toBe(true);
    expect(await sessions.startedAt(session)).toBe(since);
    time.advance(SESSION_IDLE_MS + 1);
    expect(await sessions.verify(session)).toBe(false);
    expect(await sessions.startedAt(session)).toBeNull();
  });

  it('knows only what it issued: a token is not a session, nor the other way round', async () => {
    const { engine } = await testStorage(kind);
    const sessions = createStudioSessions(engine);
    const token = await sessions.issueLoginToken();
    expect(await sessions.verify(token)).toBe(false);
    const session = (await sessions.redeem(token))!;
    expect(await sessions.redeem(session)).toBeNull();
    expect(await sessions.verify('')).toBe(false);
    expect(await sessions.verify('x'.repeat(10_000))).toBe(false);
  });

  it('keeps digests, not secrets, in the database', async () => {
    const { engine } = await testStorage(kind);
    const sessions = createStudioSessions(engine);
    const token = await sessions.issueLoginToken();
    const session = (await sessions.redeem(await sessions.issueLoginToken()))!;
    const stored = JSON.stringify(await engine.all('SELECT * FROM studio_sessions'));
    expect(stored).not.toContain(token);
    expect(stored).not.toContain(session);
    expect(stored).toContain(createHash('sha256').update(session).digest('hex'));
  });

  it('a link issued by one instance works on another, and the session on every one', async () => {
    const { engine, connect } = await testStorage(kind);
    const other = await connect();
    const issuer = createStudioSessions(engine);
    const elsewhere = createStudioSessions(other);
    const session = (await elsewhere.redeem(await issuer.issueLoginToken()))!;
    expect(await issuer.verify(session)).toBe(true);
    expect(await elsewhere.verify(session)).toBe(true);
  });
});

describe('studio sessions on PostgreSQL, between instances at once', () => {
  it('a login link redeemed on three instances at the same moment opens one session', async () => {
    const { engine, connect } = await testStorage('postgres');
    const instances = [engine, await connect(), await connect()].map((e) =>
      createStudioSessions(e),
    );
    const token = await instances[0]!.issueLoginToken();
    const redeemed = await Promise.all(instances.map((s) => s.redeem(token)));
    expect(redeemed.filter((r) => r !== null)).toHaveLength(1);
    expect(
      await engine.get(`SELECT COUNT(*) AS n FROM studio_sessions WHERE kind = 'session'`),
    ).toEqual({ n: 1 });
  });
});

describe('readCookie', () => {
  it('finds one cookie among others', () => {
    expect(readCookie('a=1; atelier_session=abc-_1; b=2', 'atelier_session')).toBe('abc-_1');
    expect(readCookie('xatelier_session=1', 'atelier_session')).toBeNull();
    expect(readCookie(undefined, 'atelier_session')).toBeNull();
  });
});
