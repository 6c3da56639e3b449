import { describe, expect, it } from 'vitest';
import { createGatewayClient, type GatewayStatus } from '../lib/gateway';
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
    expect(await createGatewayClient(answering(200, STATUS)).status()).toEqual(STATUS);
  });

  it('rejects an error status, a malformed body and an unreachable gateway', async () => {
    await expect(createGatewayClient(answering(500, {})).status()).rejects.toThrow(/500/);
    await expect(createGatewayClient(answering(200, { name: 'Atelier' })).status()).rejects.toThrow(
      /unexpected/,
    );
    const offline = async (): Promise<Response> => {
      throw new TypeError('Failed to fetch');
    };
    await expect(createGatewayClient(offline).status()).rejects.toThrow(/did not answer/);
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
