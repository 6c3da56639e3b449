/**
 * Edit's work survives a reload, as Generate's draft does: the prompt, parameters and the mask
 * switch in localStorage (small text, read at once), the images and the mask in IndexedDB (blobs
 * and bytes, never base64 in localStorage).
 *
 * What is kept is bounded: the references (at most 16, the request's own limit), the chain's
 * first step and its latest steps up to KEPT_STEPS, and only the first image's mask (one byte a
 * pixel). When the images together pass KEPT_BYTES, middle chain steps go first, then references
 * after the first; the masked image and its mask always stay. Each image is written once and
 * deleted when no longer kept; the state record names them by key.
 */
import { sanitizeParams } from '../generate/params';
import { readStored, writeStored } from '../../lib/storage';
import {
  useEditStore,
  type ChainStep,
  type ReferenceImage,
  type RestoredImage,
  type RestoredStep,
} from '../../stores/edit';
import { useMaskStore } from '../../stores/mask';

export const KEPT_STEPS = 12;
export const KEPT_BYTES = 256 * 1024 * 1024;
const TEXT_KEY = 'atelier.edit.v1';
const DB_NAME = 'atelier-edit-work';
const IMAGES = 'images';
const STATE = 'state';
/** Quiet time after the last change before the work is written. */
const SAVE_DELAY_MS = 400;

type KeptImage = Omit<RestoredImage, 'blob'> & { key: string };
type KeptStep = Omit<RestoredStep, 'blob'> & { key: string };

interface KeptState {
  references: KeptImage[];
  chain: KeptStep[];
  mask: { width: number; height: number; coverage: Uint8Array } | null;
}

/** The chain and references to keep, within the step and byte bounds (pure, for tests). */
export function boundWork<R extends { blob: Blob }, S extends { blob: Blob }>(
  references: readonly R[],
  chain: readonly S[],
  maxSteps = KEPT_STEPS,
  maxBytes = KEPT_BYTES,
): { references: R[]; chain: S[] } {
  let steps = chain.length > maxSteps ? [chain[0]!, ...chain.slice(-(maxSteps - 1))] : [...chain];
  let refs = [...references];
  const size = () =>
    Array.from(new Set([...refs, ...steps].map((x) => x.blob))).reduce((sum, b) => sum + b.size, 0);
  while (size() > maxBytes && steps.length > 2) steps = [steps[0]!, ...steps.slice(2)];
  while (size() > maxBytes && refs.length > 1) refs = refs.slice(0, -1);
  if (size() > maxBytes) steps = [];
  return { references: refs, chain: steps };
}

function request<T>(req: IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error ?? new Error('IndexedDB request failed'));
  });
}

function done(tx: IDBTransaction): Promise<void> {
  return new Promise((resolve, reject) => {
    tx.oncomplete = () => resolve();
    tx.onerror = () => reject(tx.error ?? new Error('IndexedDB transaction failed'));
    tx.onabort = () => reject(tx.error ?? new Error('IndexedDB transaction aborted'));
  });
}

let dbPromise: Promise<IDBDatabase> | null = null;
function openDb(): Promise<IDBDatabase> {
  dbPromise ??= new Promise((resolve, reject) => {
    const req = indexedDB.open(DB_NAME, 1);
    req.onupgradeneeded = () => {
      req.result.createObjectStore(IMAGES);
      req.result.createObjectStore(STATE);
    };
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error ?? new Error('IndexedDB did not open'));
  });
  return dbPromise;
}

/** Blobs get a key once; the same blob (a reference that is also a chain step) is stored once. */
const blobKeys = new WeakMap<Blob, string>();
let keySeq = 0;
const keyOf = (blob: Blob) => {
  let key = blobKeys.get(blob);
  if (!key) {
    key = `${Date.now().toString(36)}-${++keySeq}`;
    blobKeys.set(blob, key);
  }
  return key;
};

async function write(): Promise<void> {
  const { references, chain } = useEditStore.getState();
  const kept = boundWork(references, chain);
  const mask = useMaskStore.getState();
  const first = kept.references[0];
  const doc = first && mask.sourceId === first.id ? mask.doc : null;
  const strip = <T extends ReferenceImage | ChainStep>({ id: _i, url: _u, blob, ...rest }: T) => ({
    ...rest,
    key: keyOf(blob),
  });
  const state: KeptState = {
    references: kept.references.map(strip),
    chain: kept.chain.map(strip),
    mask:
      doc && !doc.isEmpty()
        ? { width: doc.width, height: doc.height, coverage: doc.coverage.slice() }
        : null,
  };
  const blobs = new Map<string, Blob>();
  for (const x of [...kept.references, ...kept.chain]) blobs.set(keyOf(x.blob), x.blob);

  const db = await openDb();
  const stored = await request(db.transaction(IMAGES).objectStore(IMAGES).getAllKeys());
  const tx = db.transaction([IMAGES, STATE], 'readwrite');
  const images = tx.objectStore(IMAGES);
  const have = new Set(stored.map(String));
  for (const [key, blob] of blobs) if (!have.has(key)) images.put(blob, key);
  for (const key of have) if (!blobs.has(key)) images.delete(key);
  tx.objectStore(STATE).put(state, 'current');
  await done(tx);
}

async function read(): Promise<{
  references: RestoredImage[];
  chain: RestoredStep[];
  mask: KeptState['mask'];
} | null> {
  const db = await openDb();
  const tx = db.transaction([IMAGES, STATE]);
  const state = (await request(tx.objectStore(STATE).get('current'))) as KeptState | undefined;
  if (!state || !Array.isArray(state.references)) return null;
  const images = tx.objectStore(IMAGES);
  const blobOf = async (key: string) => {
    const blob = (await request(images.get(key))) as unknown;
    return blob instanceof Blob ? blob : null;
  };
  const withBlobs = async <T extends { key: string }>(list: T[]) => {
    const out: Array<Omit<T, 'key'> & { blob: Blob }> = [];
    for (const { key, ...rest } of list) {
      const blob = await blobOf(key);
      if (blob) {
        blobKeys.set(blob, key);
        out.push({ ...rest, blob });
      }
    }
    return out;
  };
  const references = await withBlobs(state.references);
  const chain = await withBlobs(Array.isArray(state.chain) ? state.chain : []);
  return { references, chain, mask: state.mask ?? null };
}

interface KeptText {
  prompt: string;
  params: ReturnType<typeof sanitizeParams>;
  sendMask: boolean;
}

function readText(): KeptText | null {
  return readStored<KeptText>(TEXT_KEY, (v) => {
    const o = (typeof v === 'object' && v !== null ? v : {}) as Record<string, unknown>;
    return {
      prompt: typeof o.prompt === 'string' ? o.prompt : '',
      params: sanitizeParams(o.params),
      sendMask: o.sendMask !== false,
    };
  });
}

let started: Promise<void> | null = null;

/**
 * Once per page: puts back the kept work (unless Edit already has images, e.g. "Edit this" from
 * the gallery came first: the newer work wins), then keeps writing it as it changes. Resolves
 * when the kept work is back. Failures (storage disabled or full) leave the session working.
 */
export function keepEditWork(): Promise<void> {
  started ??= start();
  return started;
}

async function start(): Promise<void> {
  const text = readText();
  if (text && useEditStore.getState().prompt === '') {
    useEditStore.setState({ prompt: text.prompt, params: text.params, sendMask: text.sendMask });
  }
  if (typeof indexedDB !== 'undefined') {
    try {
      const kept = await read();
      if (kept && kept.references.length > 0 && useEditStore.getState().references.length === 0) {
        const [first] = kept.references;
        const restored = useEditStore.getState().restore(kept.references, kept.chain);
        const mask = kept.mask;
        if (first && restored[0] && mask && mask.coverage instanceof Uint8Array) {
          if (mask.width === first.width && mask.height === first.height) {
            useMaskStore.getState().seed(restored[0].id, mask.width, mask.height, mask.coverage);
          }
        }
      }
    } catch {
      // Nothing kept, or storage unavailable: start empty.
    }
  }

  let timer: ReturnType<typeof setTimeout> | undefined;
  let writing = Promise.resolve();
  const schedule = () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      writing = writing.then(write).catch(() => undefined);
    }, SAVE_DELAY_MS);
  };
  useEditStore.subscribe((s, prev) => {
    if (s.prompt !== prev.prompt || s.params !== prev.params || s.sendMask !== prev.sendMask) {
      writeStored(TEXT_KEY, { prompt: s.prompt, params: s.params, sendMask: s.sendMask });
    }
    if (s.references !== prev.references || s.chain !== prev.chain) schedule();
  });
  useMaskStore.subscribe((s, prev) => {
    if (s.doc !== prev.doc || s.version !== prev.version) schedule();
  });
  if (typeof indexedDB !== 'undefined') schedule();
}
