/**
 * Edit's work survives a reload, a changed port and another browser, as Generate's draft does:
 * the prompt, parameters and the mask switch are a studio state document (lib/storage.ts); the
 * images and the mask are work files kept by the gateway (`/api/admin/studio/work`), named by a
 * record that is itself a work file (editWorkState.ts). What an older studio kept in the page's
 * IndexedDB moves there once (editWorkLegacy.ts).
 *
 * What is kept is bounded (boundWork): the references, the chain's first step and latest steps,
 * and only the first image's mask. Each file is sent under a key of its own; the record is
 * written after the files it names and before any file is removed, so the record on the gateway
 * only ever names files that are there.
 *
 * Several studio pages (two tabs, a tab and the desktop window) share the one record: the last to
 * write wins it. So a page removes only the files it sent or restored itself once it no longer
 * names them, never another page's, and it asks the gateway which files are there before each
 * write, sending again any that another page's start removed. A page's start removes the files no
 * record names (what closed pages left behind), which keeps the bounded work folder from filling.
 */
import { sanitizeParams } from '../generate/params';
import { studioWork, type StudioWorkClient } from '../../lib/api/studioWork';
import { readStored, writeStored } from '../../lib/storage';
import { useEditStore, type RestoredImage, type RestoredStep } from '../../stores/edit';
import { useMaskStore } from '../../stores/mask';
import { deleteLegacyWork, readLegacyWork } from './editWorkLegacy';
import {
  boundWork,
  parseKeptState,
  STATE_KEY,
  type KeptMask,
  type KeptState,
} from './editWorkState';

const TEXT_KEY = 'atelier.edit.v1';
/** Quiet time after the last change before the work is written. */
const SAVE_DELAY_MS = 400;

/** Blobs get a key once; the same blob (a reference that is also a chain step) is sent once. */
const blobKeys = new WeakMap<Blob, string>();
const keyOf = (blob: Blob) => {
  let key = blobKeys.get(blob);
  if (!key) {
    key = crypto.randomUUID();
    blobKeys.set(blob, key);
  }
  return key;
};

/** The mask's file follows the mask document's version: a new version is a new file. */
let maskFile: { doc: object; version: number; key: string } | null = null;
const NOTHING = new Uint8Array(0);

async function write(client: StudioWorkClient, mine: Set<string>): Promise<void> {
  // Another page may have removed files this page sent (at its start): ask what is there. No
  // answer: nothing is written this time (sending every file blind could be hundreds of MB).
  const onGateway = await client.keys();
  if (!onGateway) return;
  const { references, chain } = useEditStore.getState();
  const kept = boundWork(references, chain);
  const mask = useMaskStore.getState();
  const first = kept.references[0];
  const doc =
    first && mask.sourceId === first.id && mask.doc && !mask.doc.isEmpty() ? mask.doc : null;

  const files = new Map<string, Blob | Uint8Array<ArrayBuffer>>();
  for (const x of [...kept.references, ...kept.chain]) files.set(keyOf(x.blob), x.blob);
  let keptMask: KeptMask | null = null;
  if (doc) {
    if (maskFile?.doc !== doc || maskFile.version !== doc.version) {
      maskFile = { doc, version: doc.version, key: crypto.randomUUID() };
    }
    keptMask = { width: doc.width, height: doc.height, key: maskFile.key };
    // Copied only when it is sent: the document is painted in place.
    files.set(maskFile.key, onGateway.has(maskFile.key) ? NOTHING : doc.coverage.slice());
  }
  const strip = <T extends RestoredImage & { id: string; url: string }>(x: T) => {
    const { id: _i, url: _u, blob, ...rest } = x;
    return { ...rest, key: keyOf(blob) };
  };
  const state: KeptState = {
    references: kept.references.map(strip),
    chain: kept.chain.map(strip),
    mask: keptMask,
  };

  for (const [key, bytes] of files) {
    mine.add(key);
    if (!onGateway.has(key)) await client.put(key, bytes);
  }
  await client.put(STATE_KEY, new Blob([JSON.stringify(state)], { type: 'application/json' }));
  for (const key of [...mine]) {
    if (files.has(key)) continue;
    await client.remove(key);
    mine.delete(key);
  }
}

interface Restored {
  references: RestoredImage[];
  chain: RestoredStep[];
  mask: (KeptMask & { coverage: Uint8Array }) | null;
  /** Every file key the record names (the record itself aside). */
  named: Set<string>;
}

async function readKept(
  client: StudioWorkClient,
  onGateway: Set<string>,
): Promise<Restored | null> {
  if (!onGateway.has(STATE_KEY)) return null;
  const record = await client.get(STATE_KEY);
  const state = record ? parseKeptState(JSON.parse(await record.text()) as unknown) : null;
  if (!state) return null;
  // One blob per key: a reference that is also a chain step stays one image.
  const blobs = new Map<string, Blob | null>();
  const blobOf = async (key: string, format: string) => {
    if (!blobs.has(key)) {
      const bytes = onGateway.has(key) ? await client.get(key) : null;
      const blob = bytes ? new Blob([bytes], { type: `image/${format}` }) : null;
      if (blob) blobKeys.set(blob, key);
      blobs.set(key, blob);
    }
    return blobs.get(key) ?? null;
  };
  const withBlobs = async <T extends { key: string; format: string }>(list: T[]) => {
    const out: Array<Omit<T, 'key'> & { blob: Blob }> = [];
    for (const { key, ...rest } of list) {
      const blob = await blobOf(key, rest.format);
      if (blob) out.push({ ...rest, blob });
    }
    return out;
  };
  const references = await withBlobs(state.references);
  const chain = await withBlobs(state.chain);
  let mask: Restored['mask'] = null;
  if (state.mask && onGateway.has(state.mask.key)) {
    const bytes = await client.get(state.mask.key);
    const coverage = bytes ? new Uint8Array(await bytes.arrayBuffer()) : null;
    if (coverage?.length === state.mask.width * state.mask.height) {
      mask = { ...state.mask, coverage };
    }
  }
  const named = new Set([...state.references, ...state.chain].map((x) => x.key));
  if (state.mask) named.add(state.mask.key);
  return { references, chain, mask, named };
}

/** What closed pages left behind: files no record names. Failures leave them for next time. */
async function removeUnnamed(client: StudioWorkClient, onGateway: Set<string>, named: Set<string>) {
  for (const key of onGateway) {
    if (key !== STATE_KEY && !named.has(key)) await client.remove(key).catch(() => undefined);
  }
}

/** Puts the kept work into Edit; false when there was none or Edit already has work. */
function restore(kept: Omit<Restored, 'named'>): boolean {
  if (kept.references.length === 0 || useEditStore.getState().references.length > 0) return false;
  const [first] = kept.references;
  const restored = useEditStore.getState().restore(kept.references, kept.chain);
  const { mask } = kept;
  if (first && restored[0] && mask && mask.width === first.width && mask.height === first.height) {
    useMaskStore.getState().seed(restored[0].id, mask.width, mask.height, mask.coverage);
    // The file it came from still holds it: not sent again until it changes.
    const doc = useMaskStore.getState().doc;
    if (doc && mask.key) maskFile = { doc, version: doc.version, key: mask.key };
  }
  return true;
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
 * when the kept work is back. Failures (an older gateway, a full work folder) leave the session
 * working.
 */
export function keepEditWork(client: StudioWorkClient = studioWork): Promise<void> {
  started ??= start(client);
  return started;
}

async function start(client: StudioWorkClient): Promise<void> {
  const text = readText();
  if (text && useEditStore.getState().prompt === '') {
    useEditStore.setState({ prompt: text.prompt, params: text.params, sendMask: text.sendMask });
  }
  const onGateway = await client.keys().catch(() => null);
  // The files this page sent or took up from the record: the only ones it ever removes.
  const mine = new Set<string>();
  let legacy = false;
  if (onGateway) {
    try {
      const kept = await readKept(client, onGateway);
      if (kept) {
        if (restore(kept)) for (const key of kept.named) mine.add(key);
        await removeUnnamed(client, onGateway, kept.named);
      } else {
        const old = await readLegacyWork();
        if (old) {
          restore(old);
          legacy = true;
        }
      }
    } catch {
      // Nothing kept, or it could not be read: start empty.
    }
  }

  let timer: ReturnType<typeof setTimeout> | undefined;
  let writing = Promise.resolve();
  const schedule = () => {
    if (!onGateway) return;
    clearTimeout(timer);
    timer = setTimeout(() => {
      writing = writing
        .then(() => write(client, mine))
        .then(async () => {
          if (!legacy) return;
          // Kept by the gateway now: the old copy goes.
          legacy = false;
          await deleteLegacyWork();
        })
        .catch(() => undefined);
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
  schedule();
}
