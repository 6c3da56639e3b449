/**
 * Edit's work files kept by the gateway (`/api/admin/studio/work`, docs/admin-api.md): bytes by
 * key, so a reload, another port or another browser finds Edit's images and mask (issue 22).
 * Raw bytes go as they are (never base64 in JSON), so these calls bypass the JSON requester.
 */
import { STUDIO_HEADER, studioWorkListSchema } from '../../../shared/admin';
import type { FetchLike } from './request';
import { putInWorker, putOnThisThread, type PutBytes } from './studioWorkUpload';

const BASE = '/api/admin/studio/work';

export interface StudioWorkClient {
  /** The kept keys; null when the gateway did not answer with them (an older gateway). */
  keys(): Promise<Set<string> | null>;
  /** The bytes under the key, or null when none are kept. */
  get(key: string): Promise<Blob | null>;
  /** Sends the bytes; an array given here is transferred to the sender (unusable after). */
  put(key: string, bytes: Blob | Uint8Array<ArrayBuffer>): Promise<void>;
  remove(key: string): Promise<void>;
}

export function createStudioWorkClient(
  fetchImpl: FetchLike = (input, init) => fetch(input, init),
  putBytes: PutBytes = putOnThisThread(fetchImpl),
): StudioWorkClient {
  const call = (key: string | null, init: RequestInit = {}) =>
    fetchImpl(key === null ? BASE : `${BASE}/${encodeURIComponent(key)}`, {
      ...init,
      headers: { [STUDIO_HEADER]: '1', ...(init.headers as Record<string, string> | undefined) },
      credentials: 'same-origin',
    });
  const failed = async (res: Response, what: string) =>
    new Error(`${what} answered ${res.status}: ${await res.text().catch(() => '')}`);

  return {
    async keys() {
      const res = await call(null);
      if (!res.ok) return null;
      const parsed = studioWorkListSchema.safeParse(await res.json());
      return parsed.success ? new Set(parsed.data.files.map((file) => file.key)) : null;
    },
    async get(key) {
      const res = await call(key);
      if (res.status === 404) return null;
      if (!res.ok) throw await failed(res, `GET ${key}`);
      return res.blob();
    },
    async put(key, bytes) {
      const { status, text } = await putBytes(
        `${BASE}/${encodeURIComponent(key)}`,
        { [STUDIO_HEADER]: '1', 'content-type': 'application/octet-stream' },
        bytes,
      );
      if (status < 200 || status >= 300) throw new Error(`PUT ${key} answered ${status}: ${text}`);
    },
    async remove(key) {
      const res = await call(key, { method: 'DELETE' });
      if (!res.ok && res.status !== 404) throw await failed(res, `DELETE ${key}`);
    },
  };
}

const pageFetch: FetchLike = (input, init) => fetch(input, init);
export const studioWork = createStudioWorkClient(
  pageFetch,
  putInWorker(putOnThisThread(pageFetch)),
);
