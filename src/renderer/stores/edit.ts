import { create } from 'zustand';
import { LIMITS } from '../../shared/imageParams';
import { DEFAULT_PARAMS, type ImageParams } from '../features/generate/params';
import type { ImageFormat } from '../features/edit/imageFiles';
import { createObjectUrl, retireObjectUrl } from '../lib/objectUrls';

/** A reference image of an edit. The first one is the image the mask applies to. */
export interface ReferenceImage {
  id: string;
  name: string;
  blob: Blob;
  /** Object URL owned by the store: revoked when the image leaves the list. */
  url: string;
  width: number;
  height: number;
  format: ImageFormat;
  /** Set when it came from the gallery: sent as `x-atelier-parent-image`. */
  galleryId: string | null;
}

/** One step of the edit chain: the image a run started from, and the prompt that made it. */
export interface ChainStep extends Omit<ReferenceImage, 'id' | 'url'> {
  id: string;
  /** Its own object URL (the reference's may be revoked first). */
  url: string;
  prompt: string | null;
  /** A flattened image: the layers below it are baked in, so a new layer stack starts here. */
  startsStack?: boolean;
}

/** How an edit layer shows over the steps below it (a chain step's result over its source). */
export interface LayerLook {
  hidden: boolean;
  /** 0..1 */
  opacity: number;
}

export interface EditState {
  references: ReferenceImage[];
  prompt: string;
  params: ImageParams;
  /** Send the painted mask with the edit. */
  sendMask: boolean;
  chain: ChainStep[];
  /** The first image as it was when the last edit was sent: the "before" of its results. */
  runSource: { blob: Blob; url: string; name: string } | null;
  /** Per chain step id; a step not listed shows plainly (visible, opaque). */
  layerLooks: Record<string, LayerLook>;
  setLayerLook: (stepId: string, look: Partial<LayerLook>) => void;
  /**
   * Adds images (at the end, or first); returns how many did not fit under the limit of
   * `LIMITS.maxInputImages`.
   */
  addReferences: (images: ReferenceImage[], at?: 'start' | 'end') => number;
  removeReference: (id: string) => void;
  moveReference: (id: string, toIndex: number) => void;
  setGalleryId: (id: string, galleryId: string) => void;
  /** Edit this image (e.g. from Generate): it replaces the first image and starts a new chain. */
  startFrom: (image: ReferenceImage) => void;
  /** "Edit this result": the result replaces the first image and the chain grows by a step. */
  continueWith: (
    image: ReferenceImage,
    prompt: string | null,
    options?: { startsStack?: boolean },
  ) => void;
  /** Goes back to an earlier step of the chain (to branch from it). */
  branchFrom: (stepId: string) => void;
  setRunSource: (image: ReferenceImage) => void;
  /**
   * Puts back work kept from an earlier session (a reload): the references and the chain, with
   * new ids and URLs. Returns the new references (the first is the masked one).
   */
  restore: (references: RestoredImage[], chain: RestoredStep[]) => ReferenceImage[];
  setPrompt: (prompt: string) => void;
  setParams: (patch: Partial<ImageParams>) => void;
  setSendMask: (send: boolean) => void;
}

/** A reference as kept between sessions: everything but its id and URL. */
export type RestoredImage = Omit<ReferenceImage, 'id' | 'url'>;
export type RestoredStep = Omit<ChainStep, 'id' | 'url'>;

export interface EditDeps {
  createUrl: (blob: Blob) => string;
  revokeUrl: (url: string) => void;
}

const browserDeps: EditDeps = {
  createUrl: createObjectUrl,
  revokeUrl: retireObjectUrl,
};

export function createEditStore(deps: EditDeps = browserDeps) {
  let seq = 0;
  return create<EditState>()((set, get) => {
    const toStep = ({ id: _id, url: _url, ...image }: ReferenceImage, prompt: string | null) => ({
      ...image,
      id: `step-${++seq}`,
      url: deps.createUrl(image.blob),
      prompt,
    });
    /** A first image chosen by hand starts a new chain. */
    const setReferences = (references: ReferenceImage[]) => {
      const before = get().references[0]?.id;
      if (references[0]?.id !== before) {
        for (const step of get().chain) deps.revokeUrl(step.url);
        set({ references, chain: [] });
      } else {
        set({ references });
      }
    };

    return {
      references: [],
      prompt: '',
      params: { ...DEFAULT_PARAMS, size: 'auto' },
      sendMask: true,
      chain: [],
      runSource: null,
      layerLooks: {},

      setLayerLook: (stepId, look) =>
        set((s) => {
          const before = Object.hasOwn(s.layerLooks, stepId)
            ? s.layerLooks[stepId]!
            : { hidden: false, opacity: 1 };
          return { layerLooks: { ...s.layerLooks, [stepId]: { ...before, ...look } } };
        }),

      addReferences: (images, at = 'end') => {
        const current = get().references;
        const room = LIMITS.maxInputImages - current.length;
        const accepted = images.slice(0, Math.max(0, room));
        for (const dropped of images.slice(accepted.length)) deps.revokeUrl(dropped.url);
        if (accepted.length > 0) {
          setReferences(at === 'start' ? [...accepted, ...current] : [...current, ...accepted]);
        }
        return images.length - accepted.length;
      },

      removeReference: (id) => {
        const gone = get().references.find((r) => r.id === id);
        if (!gone) return;
        deps.revokeUrl(gone.url);
        setReferences(get().references.filter((r) => r.id !== id));
      },

      moveReference: (id, toIndex) => {
        const list = [...get().references];
        const from = list.findIndex((r) => r.id === id);
        if (from === -1) return;
        const to = Math.max(0, Math.min(list.length - 1, toIndex));
        if (from === to) return;
        const [item] = list.splice(from, 1);
        list.splice(to, 0, item!);
        setReferences(list);
      },

      setGalleryId: (id, galleryId) => {
        const blob = get().references.find((r) => r.id === id)?.blob;
        set((s) => ({
          references: s.references.map((r) => (r.id === id ? { ...r, galleryId } : r)),
          chain: s.chain.map((step) => (step.blob === blob ? { ...step, galleryId } : step)),
        }));
      },

      startFrom: (image) => {
        const [first, ...rest] = get().references;
        if (first) deps.revokeUrl(first.url);
        for (const step of get().chain) deps.revokeUrl(step.url);
        set({ references: [image, ...rest], chain: [] });
      },

      continueWith: (image, prompt, options) => {
        const { references, chain } = get();
        const [first, ...rest] = references;
        if (first) deps.revokeUrl(first.url);
        const steps = chain.length === 0 && first ? [toStep(first, null)] : chain;
        const step = {
          ...toStep(image, prompt),
          ...(options?.startsStack && { startsStack: true }),
        };
        set({ references: [image, ...rest], chain: [...steps, step] });
      },

      branchFrom: (stepId) => {
        const { chain, references } = get();
        const at = chain.findIndex((s) => s.id === stepId);
        if (at === -1) return;
        const step = chain[at]!;
        for (const later of chain.slice(at + 1)) deps.revokeUrl(later.url);
        const [first, ...rest] = references;
        if (first) deps.revokeUrl(first.url);
        const { id: _id, url: _url, prompt: _prompt, ...fields } = step;
        const image: ReferenceImage = {
          ...fields,
          id: `ref-branch-${++seq}`,
          url: deps.createUrl(step.blob),
        };
        set({ references: [image, ...rest], chain: chain.slice(0, at + 1) });
      },

      setRunSource: (image) => {
        const old = get().runSource;
        if (old?.blob === image.blob) return;
        if (old) deps.revokeUrl(old.url);
        set({ runSource: { blob: image.blob, url: deps.createUrl(image.blob), name: image.name } });
      },

      restore: (kept, keptChain) => {
        const { references, chain } = get();
        for (const r of references) deps.revokeUrl(r.url);
        for (const step of chain) deps.revokeUrl(step.url);
        const restored = kept
          .slice(0, LIMITS.maxInputImages)
          .map((image) => ({ ...image, id: `ref-kept-${++seq}`, url: deps.createUrl(image.blob) }));
        const steps = keptChain.map((step) => ({
          ...step,
          id: `step-${++seq}`,
          url: deps.createUrl(step.blob),
        }));
        set({ references: restored, chain: steps });
        return restored;
      },

      setPrompt: (prompt) => set({ prompt }),
      setParams: (patch) => set((s) => ({ params: { ...s.params, ...patch } })),
      setSendMask: (sendMask) => set({ sendMask }),
    };
  });
}

export const useEditStore = createEditStore();
