/** API keys (/api/admin/keys, docs/admin-api.md): list, create, change, delete, the Studio key. */
import {
  createKeyResponseSchema,
  keyResponseSchema,
  keysResponseSchema,
  okSchema,
  type CreateKeyBody,
  type PatchKeyBody,
} from '../../../shared/admin';
import type { Requester } from './request';

const keyPath = (id: string) => `/api/admin/keys/${encodeURIComponent(id)}`;

export function keysApi(request: Requester) {
  return {
    keys: async (signal?: AbortSignal) =>
      (await request.json(keysResponseSchema, '/api/admin/keys', { signal })).keys,
    createKey: (body: CreateKeyBody) =>
      request.json(createKeyResponseSchema, '/api/admin/keys', { method: 'POST', body }),
    updateKey: async (id: string, patch: PatchKeyBody) =>
      (await request.json(keyResponseSchema, keyPath(id), { method: 'PATCH', body: patch })).record,
    deleteKey: (id: string) => request.json(okSchema, keyPath(id), { method: 'DELETE' }),
    /** The built-in Studio key (made if the studio has not used /v1 yet): its budget is the studio's. */
    studioKey: async (signal?: AbortSignal) =>
      (await request.json(keyResponseSchema, '/api/admin/keys/studio', { signal })).record,
  };
}
