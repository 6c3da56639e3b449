import { studioStateResponseSchema, STUDIO_HEADER } from '../../shared/admin';

/**
 * The studio's small state (presets, the Generate draft, Edit's text, preferences), kept by the
 * gateway (`/api/admin/studio/state`) so it survives a changed port and is the same in every tab
 * (issue 22); localStorage is only this origin's copy. `hydrateStudioState` reads the gateway's
 * documents once before the studio starts, so reads stay synchronous; writes go to both. Until it
 * has read them (the login screen, an older gateway), localStorage alone serves. Readers validate
 * what they get and fall back to their default.
 */
let mirror: Map<string, unknown> | null = null;

/** One write in flight per name; a newer value waits and replaces any older waiting one. */
const pending = new Map<string, { value: unknown; sending: boolean }>();

type Fetch = (input: string, init?: RequestInit) => Promise<Response>;
let send: Fetch = (input, init) => fetch(input, init);

/** Reads the gateway's documents; false when it could not (no session yet: localStorage serves). */
export async function hydrateStudioState(fetchImpl: Fetch = send): Promise<boolean> {
  send = fetchImpl;
  try {
    const res = await fetchImpl('/api/admin/studio/state', {
      headers: { [STUDIO_HEADER]: '1' },
      credentials: 'same-origin',
    });
    if (!res.ok) return false;
    const parsed = studioStateResponseSchema.safeParse(await res.json());
    if (!parsed.success) return false;
    mirror = new Map(Object.entries(parsed.data.entries));
    return true;
  } catch {
    return false;
  }
}

/** Forgets the gateway's documents (tests). */
export function resetStudioState(): void {
  mirror = null;
  pending.clear();
}

function push(key: string, value: unknown): void {
  const entry = pending.get(key);
  if (entry) {
    entry.value = value;
    return;
  }
  const next = { value, sending: true };
  pending.set(key, next);
  const flush = (): void => {
    const body = JSON.stringify({ value: next.value });
    const sent = next.value;
    void send(`/api/admin/studio/state/${encodeURIComponent(key)}`, {
      method: 'PUT',
      headers: { [STUDIO_HEADER]: '1', 'content-type': 'application/json' },
      credentials: 'same-origin',
      body,
    })
      .catch(() => undefined)
      .finally(() => {
        // A value that changed while this one was on its way goes next.
        if (next.value !== sent) flush();
        else pending.delete(key);
      });
  };
  flush();
}

export function readStored<T>(key: string, parse: (value: unknown) => T | null): T | null {
  if (mirror?.has(key)) {
    try {
      return parse(mirror.get(key));
    } catch {
      return null;
    }
  }
  try {
    const raw = globalThis.localStorage?.getItem(key);
    if (raw == null) return null;
    const value = parse(JSON.parse(raw));
    // Kept here by an older studio, before the gateway held it: it moves there now.
    if (value !== null && mirror) {
      mirror.set(key, JSON.parse(raw) as unknown);
      push(key, JSON.parse(raw) as unknown);
    }
    return value;
  } catch {
    return null;
  }
}

export function writeStored(key: string, value: unknown): void {
  if (mirror) {
    mirror.set(key, value);
    push(key, value);
  }
  try {
    globalThis.localStorage?.setItem(key, JSON.stringify(value));
  } catch {
    // Out of space or disabled: the gateway's copy (or this session) holds it.
  }
}
