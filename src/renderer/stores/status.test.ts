import { describe, expect, it } from 'vitest';
import { fetchStatus, type GatewayStatus } from '../lib/api';
import { createStatusStore } from './status';

const STATUS: GatewayStatus = {
  name: 'Atelier',
  version: '0.1.0',
  upstream: { kind: 'simulator', label: 'Offline simulator' },
  address: 'http://127.0.0.1:8787',
};

function answering(status: number, body: unknown): typeof fetch {
  return async () => new Response(JSON.stringify(body), { status });
}

describe('fetchStatus', () => {
  it('returns a well-formed status', async () => {
    expect(await fetchStatus(answering(200, STATUS))).toEqual(STATUS);
  });

  it('rejects an error status, a malformed body and an unreachable gateway', async () => {
    await expect(fetchStatus(answering(500, {}))).rejects.toThrow(/500/);
    await expect(fetchStatus(answering(200, { name: 'Atelier' }))).rejects.toThrow(/unexpected/);
    const offline: typeof fetch = async () => {
      throw new TypeError('Failed to fetch');
    };
    await expect(fetchStatus(offline)).rejects.toThrow(/did not answer/);
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
