import { describe, expect, it } from 'vitest';
import { createImagesClient } from '../lib/api/images';
import type { GatewayStatus } from '../lib/api/status';
import { memoryHistory } from '../lib/history';
import { createRouteStore, normalisePath } from './route';
import { createSessionStore } from './session';
import { createStatusStore } from './status';

const STATUS: GatewayStatus = {
  name: 'Atelier',
  version: '0.1.0',
  upstream: { kind: 'simulator', label: 'Offline simulator' },
  address: 'http://127.0.0.1:8787',
};

function answering(status: number, body: unknown) {
  return async () => new Response(JSON.stringify(body), { status });
}

describe('gateway status', () => {
  it('returns a well-formed status', async () => {
    expect(await createImagesClient(answering(200, STATUS)).status()).toEqual(STATUS);
  });

  it('rejects an error status, a malformed body and an unreachable gateway', async () => {
    await expect(createImagesClient(answering(500, {})).status()).rejects.toThrow(/500/);
    await expect(createImagesClient(answering(200, { name: 'Atelier' })).status()).rejects.toThrow(
      /unexpected/,
    );
    const offline = async (): Promise<Response> => {
      throw new TypeError('Failed to fetch');
    };
    await expect(createImagesClient(offline).status()).rejects.toThrow(/did not answer/);
  });
});

describe('status store', () => {
  it('moves from idle to ready with the status', async () => {
    const store = createStatusStore(async () => STATUS);
    expect(store.getState().phase).toBe('idle');
    await store.getState().load();
    expect(store.getState()).toMatchObject({ phase: 'ready', status: STATUS, error: null });
  });

  it('keeps the error message when loading fails', async () => {
    const store = createStatusStore(async () => {
      throw new Error('GET /api/status answered 503');
    });
    await store.getState().load();
    expect(store.getState()).toMatchObject({
      phase: 'error',
      error: 'GET /api/status answered 503',
    });
  });
});

describe('status refresh', () => {
  const ACCOUNTS: GatewayStatus = {
    ...STATUS,
    upstream: { kind: 'accounts', label: '1 of 1 account ready' },
  };

  it('replaces the status while staying ready (the shell never blinks)', async () => {
    const answers = [STATUS, ACCOUNTS];
    const store = createStatusStore(async () => answers.shift()!);
    await store.getState().load();
    const phases: string[] = [];
    const stop = store.subscribe((s) => phases.push(s.phase));
    await store.getState().refresh();
    stop();
    expect(store.getState()).toMatchObject({ phase: 'ready', status: ACCOUNTS });
    expect(phases.every((p) => p === 'ready')).toBe(true);
  });

  it('keeps what is shown when a refresh fails', async () => {
    let fail = false;
    const store = createStatusStore(async () => {
      if (fail) throw new Error('GET /api/status answered 503');
      return STATUS;
    });
    await store.getState().load();
    fail = true;
    await store.getState().refresh();
    expect(store.getState()).toMatchObject({ phase: 'ready', status: STATUS, error: null });
  });

  it('asks once for refreshes that overlap', async () => {
    let calls = 0;
    let answer!: (status: GatewayStatus) => void;
    const store = createStatusStore(() => {
      calls += 1;
      return calls === 1 ? Promise.resolve(STATUS) : new Promise((r) => (answer = r));
    });
    await store.getState().load();
    const both = Promise.all([store.getState().refresh(), store.getState().refresh()]);
    answer(ACCOUNTS);
    await both;
    expect(calls).toBe(2);
    expect(store.getState().status).toEqual(ACCOUNTS);
  });

  it('loads in full when nothing was loaded yet', async () => {
    const store = createStatusStore(async () => STATUS);
    await store.getState().refresh();
    expect(store.getState()).toMatchObject({ phase: 'ready', status: STATUS });
  });
});

describe('session store', () => {
  it('asks for the login link on 401 and reports other failures', async () => {
    const login = createSessionStore(async () => 'login');
    await login.getState().check();
    expect(login.getState().phase).toBe('login');
    const broken = createSessionStore(async () => {
      throw new Error('GET /api/admin/session answered 500');
    });
    await broken.getState().check();
    expect(broken.getState()).toMatchObject({
      phase: 'error',
      error: expect.stringContaining('500'),
    });
  });
});

describe('session expiry', () => {
  /** A probe whose answers the test scripts: 'ok' first, then what the gateway says now. */
  function scripted(...answers: Array<'ok' | 'login' | Error>) {
    let calls = 0;
    const probe = async () => {
      const answer = answers[Math.min(calls++, answers.length - 1)]!;
      if (answer instanceof Error) throw answer;
      return answer;
    };
    return { probe, calls: () => calls };
  }

  it('shows the login screen, marked expired, once a probe confirms the session ended', async () => {
    const { probe } = scripted('ok', 'login');
    const store = createSessionStore(probe);
    await store.getState().check();
    expect(store.getState()).toMatchObject({ phase: 'ok', expired: false });
    await store.getState().verify();
    expect(store.getState()).toMatchObject({ phase: 'login', expired: true });
  });

  it('stays on the page when the session is fine (a 401 for another reason) or unreachable', async () => {
    const fine = createSessionStore(scripted('ok', 'ok').probe);
    await fine.getState().check();
    await fine.getState().verify();
    expect(fine.getState()).toMatchObject({ phase: 'ok', expired: false });

    const offline = createSessionStore(scripted('ok', new Error('did not answer')).probe);
    await offline.getState().check();
    await offline.getState().verify();
    expect(offline.getState()).toMatchObject({ phase: 'ok', expired: false, error: null });
  });

  it('probes once for a burst of 401s, and not at all before the studio is signed in', async () => {
    const script = scripted('login', 'ok', 'login');
    const store = createSessionStore(script.probe);
    await store.getState().check();
    await store.getState().verify();
    expect(script.calls()).toBe(1);
    await store.getState().check();
    await Promise.all([store.getState().verify(), store.getState().verify()]);
    expect(script.calls()).toBe(3);
    expect(store.getState()).toMatchObject({ phase: 'login', expired: true });
  });

  it('clears the expired mark once signed in again', async () => {
    const store = createSessionStore(scripted('ok', 'login', 'login', 'ok').probe);
    await store.getState().check();
    await store.getState().verify();
    await store.getState().check();
    expect(store.getState()).toMatchObject({ phase: 'login', expired: true });
    await store.getState().check();
    expect(store.getState()).toMatchObject({ phase: 'ok', expired: false });
  });
});

describe('route store', () => {
  it('pushes history on navigation and follows back/forward', () => {
    const history = memoryHistory('/edit/');
    const store = createRouteStore(history);
    expect(store.getState().path).toBe('/edit');
    store.getState().navigate('/keys?x=1');
    expect(history.current()).toBe('/keys');
    expect(store.getState().path).toBe('/keys');
    const stop = store.getState().listen();
    history.pop('/gallery');
    expect(store.getState().path).toBe('/gallery');
    stop();
    history.pop('/usage');
    expect(store.getState().path).toBe('/gallery');
    expect(normalisePath('/')).toBe('/');
    expect(normalisePath('')).toBe('/');
  });
});
