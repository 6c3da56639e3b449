/**
 * The admin API of the Gallery, Usage, Keys, Accounts, Server and Settings pages
 * (docs/admin-api.md). Every answer is checked against its schema in src/shared/admin.ts.
 */
import '../zodConfig';
import type { z } from 'zod';
import {
  accountLoginStartSchema,
  accountLoginStateSchema,
  accountResponseSchema,
  accountsResponseSchema,
  accountTestResponseSchema,
  studioRunsResponseSchema,
  addBoardImagesResponseSchema,
  boardResponseSchema,
  boardsResponseSchema,
  studioSessionInfoSchema,
  cancelRunResponseSchema,
  createKeyResponseSchema,
  liveRunsResponseSchema,
  imageDetailSchema,
  imageResponseSchema,
  keyResponseSchema,
  keysResponseSchema,
  okSchema,
  pricesResponseSchema,
  settingsResponseSchema,
  usageListResponseSchema,
  usagePerformanceResponseSchema,
  usageTotalsResponseSchema,
  type AccountLoginBody,
  type CreateAccountBody,
  type CreateKeyBody,
  type PatchAccountBody,
  type PatchKeyBody,
  type PutPriceBody,
  type SettingsPatch,
  type UsageGroupBy,
} from '../../../shared/admin';
import { createRequest, queryString, type FetchLike, type Method } from './request';
import { doubtSession } from './session';

/** The filters of GET /api/admin/usage and /usage.csv. */
export interface UsageFilters {
  since?: number;
  until?: number;
  apiKeyId?: string;
  /** An upstream account's id (`simulator` for the built-in simulator). */
  account?: string;
  model?: string;
  endpoint?: string;
  status?: 'success' | 'error' | 'cancelled' | number;
}

const imagePath = (id: string) => `/api/admin/images/${encodeURIComponent(id)}`;

/**
 * What a browser loads without fetch: `<img>`, download links and EventSource cannot send the
 * studio header, and the gateway admits them on the cookie plus `Sec-Fetch-Site: same-origin`.
 */
export const adminUrls = {
  thumb: (id: string) => `${imagePath(id)}/thumb`,
  file: (id: string) => `${imagePath(id)}/file`,
  mask: (id: string) => `${imagePath(id)}/mask`,
  usageCsv: (filters: UsageFilters = {}) => `/api/admin/usage.csv${queryString({ ...filters })}`,
  events: '/api/admin/events',
} as const;

export function createAdminClient(
  fetchImpl: FetchLike = (input, init) => fetch(input, init),
  onUnauthorized: () => void = doubtSession,
) {
  const request = createRequest(fetchImpl, onUnauthorized);
  const call = <S extends z.ZodType>(
    schema: S,
    method: Method,
    path: string,
    body?: unknown,
    signal?: AbortSignal,
  ) => request.json(schema, path, { method, body, signal });
  const keyPath = (id: string) => `/api/admin/keys/${encodeURIComponent(id)}`;
  const accountPath = (id: string) => `/api/admin/accounts/${encodeURIComponent(id)}`;
  const boardPath = (id: string) => `/api/admin/boards/${encodeURIComponent(id)}`;

  return {
    /** The studio session: live, and when it began (the session budget counts from there). */
    session: (signal?: AbortSignal) =>
      call(studioSessionInfoSchema, 'GET', '/api/admin/session', undefined, signal),
    keys: async (signal?: AbortSignal) =>
      (await call(keysResponseSchema, 'GET', '/api/admin/keys', undefined, signal)).keys,
    createKey: (body: CreateKeyBody) =>
      call(createKeyResponseSchema, 'POST', '/api/admin/keys', body),
    updateKey: async (id: string, patch: PatchKeyBody) =>
      (await call(keyResponseSchema, 'PATCH', keyPath(id), patch)).record,
    deleteKey: (id: string) => call(okSchema, 'DELETE', keyPath(id)),

    accounts: (signal?: AbortSignal) =>
      call(accountsResponseSchema, 'GET', '/api/admin/accounts', undefined, signal),
    addAccount: async (body: CreateAccountBody) =>
      (await call(accountResponseSchema, 'POST', '/api/admin/accounts', body)).account,
    updateAccount: async (id: string, patch: PatchAccountBody) =>
      (await call(accountResponseSchema, 'PATCH', accountPath(id), patch)).account,
    deleteAccount: (id: string) => call(okSchema, 'DELETE', accountPath(id)),
    testAccount: (id: string) => call(accountTestResponseSchema, 'POST', `${accountPath(id)}/test`),
    startAccountLogin: (body: AccountLoginBody) =>
      call(accountLoginStartSchema, 'POST', '/api/admin/accounts/login', body),
    accountLogin: (loginId: string, signal?: AbortSignal) =>
      call(
        accountLoginStateSchema,
        'GET',
        `/api/admin/accounts/login/${encodeURIComponent(loginId)}`,
        undefined,
        signal,
      ),

    usage: (filters: UsageFilters & { limit?: number; offset?: number }, signal?: AbortSignal) =>
      call(
        usageListResponseSchema,
        'GET',
        `/api/admin/usage${queryString({ ...filters })}`,
        undefined,
        signal,
      ),
    usageTotals: async (
      query: {
        groupBy?: UsageGroupBy;
        since?: number;
        until?: number;
        utcOffsetMinutes?: number;
        apiKeyId?: string;
        account?: string;
      },
      signal?: AbortSignal,
    ) =>
      (
        await call(
          usageTotalsResponseSchema,
          'GET',
          `/api/admin/usage/totals${queryString({ ...query })}`,
          undefined,
          signal,
        )
      ).rows,

    settings: (signal?: AbortSignal) =>
      call(settingsResponseSchema, 'GET', '/api/admin/settings', undefined, signal),
    updateSettings: (patch: SettingsPatch) =>
      call(settingsResponseSchema, 'PUT', '/api/admin/settings', patch),
    prices: async (signal?: AbortSignal) =>
      (await call(pricesResponseSchema, 'GET', '/api/admin/prices', undefined, signal)).prices,
    setPrice: async (model: string, body: PutPriceBody) =>
      (
        await call(
          pricesResponseSchema,
          'PUT',
          `/api/admin/prices/${encodeURIComponent(model)}`,
          body,
        )
      ).prices,

    image: (id: string, signal?: AbortSignal) =>
      call(imageDetailSchema, 'GET', imagePath(id), undefined, signal),
    setFavourite: async (id: string, favourite: boolean) =>
      (await call(imageResponseSchema, 'PATCH', imagePath(id), { favourite })).image,
    /** Star (favourite) or reject (hide from the gallery) an image; either may be taken back. */
    markImage: async (id: string, marks: { favourite?: boolean; rejected?: boolean }) =>
      (await call(imageResponseSchema, 'PATCH', imagePath(id), marks)).image,
    deleteImage: (id: string) => call(okSchema, 'DELETE', imagePath(id)),
    boards: async (signal?: AbortSignal) =>
      (await call(boardsResponseSchema, 'GET', '/api/admin/boards', undefined, signal)).boards,
    createBoard: async (name: string) =>
      (await call(boardResponseSchema, 'POST', '/api/admin/boards', { name })).board,
    renameBoard: async (id: string, name: string) =>
      (await call(boardResponseSchema, 'PATCH', boardPath(id), { name })).board,
    deleteBoard: (id: string) => call(okSchema, 'DELETE', boardPath(id)),
    addToBoard: (id: string, imageIds: string[]) =>
      call(addBoardImagesResponseSchema, 'POST', `${boardPath(id)}/images`, { imageIds }),
    /** The studio's own runs, newest first, with the images each kept (issue 22). */
    studioRuns: (
      query: { endpoint?: 'generations' | 'edits'; limit?: number; offset?: number },
      signal?: AbortSignal,
    ) =>
      call(
        studioRunsResponseSchema,
        'GET',
        `/api/admin/studio/runs${queryString({ ...query })}`,
        undefined,
        signal,
      ),

    /** The studio's runs still going at the gateway (a closed or reloaded page comes back to them). */
    liveRuns: async (signal?: AbortSignal) =>
      (await call(liveRunsResponseSchema, 'GET', '/api/admin/runs/live', undefined, signal)).runs,

    /** Stops the upstream work of a studio run; false when it had already ended. */
    cancelRun: async (runId: string) =>
      (
        await call(
          cancelRunResponseSchema,
          'POST',
          `/api/admin/runs/${encodeURIComponent(runId)}/cancel`,
        )
      ).cancelled,

    // --- issue 15: the studio budget and spend at a glance ---
    /** The built-in Studio key (made if the studio has not used /v1 yet): its budget is the studio's. */
    studioKey: async (signal?: AbortSignal) =>
      (await call(keyResponseSchema, 'GET', '/api/admin/keys/studio', undefined, signal)).record,
    /** Latency percentiles and success rate over time, by key or account. */
    usagePerformance: (
      query: {
        groupBy?: 'key' | 'account';
        bucket?: 'hour' | 'day';
        since?: number;
        until?: number;
        apiKeyId?: string;
        account?: string;
        utcOffsetMinutes?: number;
      },
      signal?: AbortSignal,
    ) =>
      call(
        usagePerformanceResponseSchema,
        'GET',
        `/api/admin/usage/performance${queryString({ ...query })}`,
        undefined,
        signal,
      ),
  };
}

export type AdminClient = ReturnType<typeof createAdminClient>;

/** The admin API client of the gateway pages. */
export const admin = createAdminClient();
