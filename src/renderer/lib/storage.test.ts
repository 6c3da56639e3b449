import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { hydrateStudioState, readStored, resetStudioState, writeStored } from './storage';

/** A gateway stand-in speaking /api/admin/studio/state over the fetch interface. */
function fakeGateway(entries: Record<string, unknown>) {
  const puts: Array<{ name: string; value: unknown }> = [];
  let release: (() => void) | null = null;
  let hold = false;
  const fetchImpl = async (input: string, init?: RequestInit): Promise<Response> => {
    if (init?.method === 'PUT') {
      if (hold) await new Promise<void>((resolve) => (release = resolve));
      const name = decodeURIComponent(input.split('/').pop()!);
      puts.push({ name, value: (JSON.parse(String(init.body)) as { value: unknown }).value });
      return new Response('{"ok":true}');
    }
    return new Response(JSON.stringify({ entries }));
  };
  return {
    fetchImpl,
    puts,
    holdPuts: () => (hold = true),
    releasePut: () => {
      hold = false;
      release?.();
    },
  };
}

// Node has no localStorage: a Map behind the same four calls stands in for the browser's.
const local = new Map<string, string>();
beforeEach(() => {
  vi.stubGlobal('localStorage', {
    getItem: (k: string) => local.get(k) ?? null,
    setItem: (k: string, v: string) => void local.set(k, v),
    removeItem: (k: string) => void local.delete(k),
    clear: () => local.clear(),
  });
});
afterEach(() => {
  resetStudioState();
  local.clear();
  vi.unstubAllGlobals();
});

const asString = (v: unknown) => (typeof v === 'string' ? v : null);

describe('the studio state kept by the gateway', () => {
  it('reads the gateway’s copy first, and writes go to the gateway too', async () => {
    const gateway = fakeGateway({ 'atelier.a': 'from the gateway' });
    localStorage.setItem('atelier.a', JSON.stringify('from this origin'));
    expect(await hydrateStudioState(gateway.fetchImpl)).toBe(true);
    expect(readStored('atelier.a', asString)).toBe('from the gateway');
    writeStored('atelier.a', 'changed');
    expect(readStored('atelier.a', asString)).toBe('changed');
    await expect.poll(() => gateway.puts).toEqual([{ name: 'atelier.a', value: 'changed' }]);
  });

  it('moves a value only this origin had to the gateway', async () => {
    const gateway = fakeGateway({});
    localStorage.setItem('atelier.old', JSON.stringify('kept before'));
    await hydrateStudioState(gateway.fetchImpl);
    expect(readStored('atelier.old', asString)).toBe('kept before');
    await expect.poll(() => gateway.puts).toEqual([{ name: 'atelier.old', value: 'kept before' }]);
  });

  it('sends one write at a time per name, the newest last', async () => {
    const gateway = fakeGateway({});
    await hydrateStudioState(gateway.fetchImpl);
    gateway.holdPuts();
    writeStored('atelier.n', 1);
    writeStored('atelier.n', 2);
    writeStored('atelier.n', 3);
    gateway.releasePut();
    await expect.poll(() => gateway.puts.map((p) => p.value)).toEqual([1, 3]);
  });

  it('without the gateway (no session yet) serves from localStorage alone', async () => {
    const failing = async () => new Response('{}', { status: 401 });
    expect(await hydrateStudioState(failing)).toBe(false);
    writeStored('atelier.b', 'local');
    expect(readStored('atelier.b', asString)).toBe('local');
  });
});
