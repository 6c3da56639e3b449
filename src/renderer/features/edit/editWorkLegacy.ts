/**
 * Where an older studio kept Edit's images and mask: the page's IndexedDB, one per origin, so a
 * changed port lost them. Read once, moved to the gateway by editWork.ts, then deleted.
 */
import type { RestoredImage, RestoredStep } from '../../stores/edit';
import type { KeptMask } from './editWorkState';

const DB_NAME = 'atelier-edit-work';
const IMAGES = 'images';
const STATE = 'state';

interface LegacyState {
  references: Array<Omit<RestoredImage, 'blob'> & { key: string }>;
  chain: Array<Omit<RestoredStep, 'blob'> & { key: string }>;
  mask: { width: number; height: number; coverage: Uint8Array } | null;
}

export interface LegacyWork {
  references: RestoredImage[];
  chain: RestoredStep[];
  mask: (KeptMask & { coverage: Uint8Array }) | null;
}

function request<T>(req: IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error ?? new Error('IndexedDB request failed'));
  });
}

/** Whether the old database exists, without creating it (open() would). */
async function exists(): Promise<boolean> {
  if (typeof indexedDB === 'undefined' || typeof indexedDB.databases !== 'function') return false;
  const list = await indexedDB.databases();
  return list.some((db) => db.name === DB_NAME);
}

/** What an older studio kept in this origin's IndexedDB, or null when it kept nothing. */
export async function readLegacyWork(): Promise<LegacyWork | null> {
  if (!(await exists())) return null;
  const db = await new Promise<IDBDatabase>((resolve, reject) => {
    const req = indexedDB.open(DB_NAME);
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error ?? new Error('IndexedDB did not open'));
  });
  try {
    if (!db.objectStoreNames.contains(STATE) || !db.objectStoreNames.contains(IMAGES)) return null;
    const tx = db.transaction([IMAGES, STATE]);
    const state = (await request(tx.objectStore(STATE).get('current'))) as LegacyState | undefined;
    if (!state || !Array.isArray(state.references)) return null;
    const images = tx.objectStore(IMAGES);
    const withBlobs = async <T extends { key: string }>(list: T[]) => {
      const out: Array<Omit<T, 'key'> & { blob: Blob }> = [];
      for (const { key, ...rest } of list) {
        const blob = (await request(images.get(key))) as unknown;
        if (blob instanceof Blob) out.push({ ...rest, blob });
      }
      return out;
    };
    const references = await withBlobs(state.references);
    const chain = await withBlobs(Array.isArray(state.chain) ? state.chain : []);
    const mask =
      state.mask && state.mask.coverage instanceof Uint8Array
        ? { ...state.mask, key: '', coverage: state.mask.coverage }
        : null;
    return { references, chain, mask };
  } finally {
    db.close();
  }
}

/** Forgets the old database once its work is kept by the gateway. */
export function deleteLegacyWork(): Promise<void> {
  return new Promise((resolve) => {
    const req = indexedDB.deleteDatabase(DB_NAME);
    req.onsuccess = () => resolve();
    req.onerror = () => resolve();
    req.onblocked = () => resolve();
  });
}
