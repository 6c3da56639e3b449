/** Upstream accounts (/api/admin/accounts): list, add, change, test, delete, sign in. */
import {
  accountLoginStartSchema,
  accountLoginStateSchema,
  accountResponseSchema,
  accountsResponseSchema,
  accountTestResponseSchema,
  okSchema,
  type AccountLoginBody,
  type CreateAccountBody,
  type PatchAccountBody,
} from '../../../shared/admin';
import type { Requester } from './request';

const accountPath = (id: string) => `/api/admin/accounts/${encodeURIComponent(id)}`;

export function accountsApi(request: Requester) {
  return {
    accounts: (signal?: AbortSignal) =>
      request.json(accountsResponseSchema, '/api/admin/accounts', { signal }),
    addAccount: async (body: CreateAccountBody) =>
      (
        await request.json(accountResponseSchema, '/api/admin/accounts', {
          method: 'POST',
          body,
        })
      ).account,
    updateAccount: async (id: string, patch: PatchAccountBody) =>
      (await request.json(accountResponseSchema, accountPath(id), { method: 'PATCH', body: patch }))
        .account,
    deleteAccount: (id: string) => request.json(okSchema, accountPath(id), { method: 'DELETE' }),
    testAccount: (id: string) =>
      request.json(accountTestResponseSchema, `${accountPath(id)}/test`, { method: 'POST' }),
    startAccountLogin: (body: AccountLoginBody) =>
      request.json(accountLoginStartSchema, '/api/admin/accounts/login', { method: 'POST', body }),
    accountLogin: (loginId: string, signal?: AbortSignal) =>
      request.json(
        accountLoginStateSchema,
        `/api/admin/accounts/login/${encodeURIComponent(loginId)}`,
        { signal },
      ),
  };
}
