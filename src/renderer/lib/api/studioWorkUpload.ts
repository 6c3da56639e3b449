/**
 * A PUT of bytes made by a worker (studioWorkUpload.worker.ts), so the page's main thread only
 * hands the bytes over. Where workers are not available (tests, an old browser) the page's own
 * fetch sends them.
 */
import type { FetchLike } from './request';

export interface UploadRequest {
  id: number;
  url: string;
  headers: Record<string, string>;
  body: Blob | ArrayBuffer;
}

export interface UploadResult {
  id: number;
  /** 0 when no answer came. */
  status: number;
  text: string;
}

export type PutBytes = (
  url: string,
  headers: Record<string, string>,
  bytes: Blob | Uint8Array<ArrayBuffer>,
) => Promise<{ status: number; text: string }>;

/** PUT through `fetchImpl` on this thread. */
export function putOnThisThread(fetchImpl: FetchLike): PutBytes {
  return async (url, headers, bytes) => {
    const res = await fetchImpl(url, {
      method: 'PUT',
      headers,
      body: bytes,
      credentials: 'same-origin',
    });
    return { status: res.status, text: res.ok ? '' : await res.text().catch(() => '') };
  };
}

/** PUT through one worker, started at the first send; falls back when it cannot start. */
export function putInWorker(fallback: PutBytes): PutBytes {
  let worker: Worker | null | undefined;
  let next = 0;
  const waiting = new Map<number, (result: UploadResult) => void>();
  const start = (): Worker | null => {
    if (worker !== undefined) return worker;
    try {
      worker = new Worker(new URL('./studioWorkUpload.worker.ts', import.meta.url), {
        type: 'module',
      });
      worker.onmessage = (event: MessageEvent<UploadResult>) => {
        waiting.get(event.data.id)?.(event.data);
        waiting.delete(event.data.id);
      };
      worker.onerror = () => {
        // The worker is gone: whatever waits on it is answered as not sent.
        for (const [id, settle] of waiting) settle({ id, status: 0, text: 'worker failed' });
        waiting.clear();
        worker = null;
      };
    } catch {
      worker = null;
    }
    return worker;
  };
  return (url, headers, bytes) => {
    const target = typeof Worker === 'undefined' ? null : start();
    if (!target) return fallback(url, headers, bytes);
    const id = ++next;
    return new Promise((resolve) => {
      waiting.set(id, resolve);
      // A Blob goes as a handle; an array's buffer is transferred, never copied.
      const body = bytes instanceof Blob ? bytes : bytes.buffer;
      const message: UploadRequest = { id, url, headers, body };
      target.postMessage(message, body instanceof ArrayBuffer ? [body] : []);
    });
  };
}
