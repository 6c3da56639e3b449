import type { z } from 'zod';
import {
  accountLoginBodySchema,
  accountLoginStartSchema,
  accountLoginStateSchema,
  accountResponseSchema,
  accountsResponseSchema,
  cancelRunResponseSchema,
  createAccountBodySchema,
  createKeyBodySchema,
  createKeyResponseSchema,
  imageDetailSchema,
  imageResponseSchema,
  imagesPageSchema,
  imagesQuerySchema,
  keyResponseSchema,
  keysResponseSchema,
  liveRunsResponseSchema,
  runEventsQuerySchema,
  okSchema,
  accountTestResponseSchema,
  addBoardImagesBodySchema,
  addBoardImagesResponseSchema,
  boardBodySchema,
  boardResponseSchema,
  boardsResponseSchema,
  putStudioStateBodySchema,
  studioRunsQuerySchema,
  studioRunsResponseSchema,
  studioSessionInfoSchema,
  studioStateResponseSchema,
  studioWorkListSchema,
  patchAccountBodySchema,
  patchImageBodySchema,
  patchKeyBodySchema,
  pricesResponseSchema,
  putPriceBodySchema,
  settingsPatchSchema,
  settingsResponseSchema,
  usageListResponseSchema,
  usageQuerySchema,
  usageTotalsQuerySchema,
  usageTotalsResponseSchema,
} from '../../shared/admin';

type Json = Record<string, unknown>;

/** One admin route and the zod schemas its handler parses with and answers in. */
interface AdminRoute {
  method: 'get' | 'post' | 'patch' | 'put' | 'delete';
  path: string;
  summary: string;
  body?: z.ZodType | 'bytes';
  query?: z.ZodObject;
  /** A JSON answer's schema, or another content type. */
  answer: z.ZodType | 'text/csv' | 'image' | 'text/event-stream' | 'bytes';
}

/** The studio's admin API (docs/admin-api.md), route by route, from the schemas in shared/admin.ts. */
const ROUTES: AdminRoute[] = [
  {
    method: 'get',
    path: '/session',
    summary: 'Whether the session is valid, and when it began',
    answer: studioSessionInfoSchema,
  },
  { method: 'get', path: '/keys', summary: 'API keys', answer: keysResponseSchema },
  {
    method: 'post',
    path: '/keys',
    summary: 'Create a key (shown once)',
    body: createKeyBodySchema,
    answer: createKeyResponseSchema,
  },
  {
    method: 'patch',
    path: '/keys/{id}',
    summary: 'Change a key',
    body: patchKeyBodySchema,
    answer: keyResponseSchema,
  },
  { method: 'delete', path: '/keys/{id}', summary: 'Delete a key', answer: okSchema },
  {
    method: 'get',
    path: '/accounts',
    summary: 'Upstream accounts and their state',
    answer: accountsResponseSchema,
  },
  {
    method: 'post',
    path: '/accounts',
    summary: 'Add an API-key or simulator account',
    body: createAccountBodySchema,
    answer: accountResponseSchema,
  },
  {
    method: 'patch',
    path: '/accounts/{id}',
    summary: 'Change an account',
    body: patchAccountBodySchema,
    answer: accountResponseSchema,
  },
  { method: 'delete', path: '/accounts/{id}', summary: 'Remove an account', answer: okSchema },
  {
    method: 'post',
    path: '/accounts/{id}/test',
    summary: "Test an account's connection",
    answer: accountTestResponseSchema,
  },
  {
    method: 'post',
    path: '/accounts/login',
    summary: 'Start a subscription sign-in',
    body: accountLoginBodySchema,
    answer: accountLoginStartSchema,
  },
  {
    method: 'get',
    path: '/accounts/login/{loginId}',
    summary: 'A sign-in in progress',
    answer: accountLoginStateSchema,
  },
  {
    method: 'get',
    path: '/usage',
    summary: 'Usage records',
    query: usageQuerySchema,
    answer: usageListResponseSchema,
  },
  {
    method: 'get',
    path: '/usage/totals',
    summary: 'Usage totals',
    query: usageTotalsQuerySchema,
    answer: usageTotalsResponseSchema,
  },
  {
    method: 'get',
    path: '/usage.csv',
    summary: 'Usage records as CSV',
    query: usageQuerySchema,
    answer: 'text/csv',
  },
  { method: 'get', path: '/settings', summary: 'Gateway settings', answer: settingsResponseSchema },
  {
    method: 'put',
    path: '/settings',
    summary: 'Change settings',
    body: settingsPatchSchema,
    answer: settingsResponseSchema,
  },
  { method: 'get', path: '/prices', summary: 'The price table', answer: pricesResponseSchema },
  {
    method: 'put',
    path: '/prices/{model}',
    summary: "Set a model's prices",
    body: putPriceBodySchema,
    answer: pricesResponseSchema,
  },
  {
    method: 'get',
    path: '/images',
    summary: 'Gallery page',
    query: imagesQuerySchema,
    answer: imagesPageSchema,
  },
  {
    method: 'get',
    path: '/images/{id}',
    summary: 'An image and its edit chain',
    answer: imageDetailSchema,
  },
  { method: 'get', path: '/images/{id}/file', summary: 'Image bytes', answer: 'image' },
  { method: 'get', path: '/images/{id}/thumb', summary: 'Thumbnail bytes', answer: 'image' },
  { method: 'get', path: '/images/{id}/mask', summary: 'Mask bytes', answer: 'image' },
  {
    method: 'patch',
    path: '/images/{id}',
    summary: 'Star (favourite) or reject an image',
    body: patchImageBodySchema,
    answer: imageResponseSchema,
  },
  { method: 'delete', path: '/images/{id}', summary: 'Delete an image', answer: okSchema },
  {
    method: 'post',
    path: '/runs/{runId}/cancel',
    summary: 'Cancel a studio run',
    answer: cancelRunResponseSchema,
  },
  {
    method: 'get',
    path: '/runs/live',
    summary: "The studio's runs still going",
    answer: liveRunsResponseSchema,
  },
  {
    method: 'get',
    path: '/runs/{runId}/events',
    summary: "A studio run's image events after starting_after, then until it ends",
    query: runEventsQuerySchema,
    answer: 'text/event-stream',
  },
  { method: 'get', path: '/boards', summary: 'Boards', answer: boardsResponseSchema },
  {
    method: 'post',
    path: '/boards',
    summary: 'Make a board',
    body: boardBodySchema,
    answer: boardResponseSchema,
  },
  {
    method: 'patch',
    path: '/boards/{id}',
    summary: 'Rename a board',
    body: boardBodySchema,
    answer: boardResponseSchema,
  },
  { method: 'delete', path: '/boards/{id}', summary: 'Delete a board', answer: okSchema },
  {
    method: 'post',
    path: '/boards/{id}/images',
    summary: 'Put images on a board',
    body: addBoardImagesBodySchema,
    answer: addBoardImagesResponseSchema,
  },
  {
    method: 'delete',
    path: '/boards/{id}/images/{imageId}',
    summary: 'Take an image off a board',
    answer: okSchema,
  },
  {
    method: 'get',
    path: '/studio/runs',
    summary: "The studio's runs with their images",
    query: studioRunsQuerySchema,
    answer: studioRunsResponseSchema,
  },
  {
    method: 'get',
    path: '/studio/state',
    summary: "The studio's presets, drafts and preferences",
    answer: studioStateResponseSchema,
  },
  {
    method: 'put',
    path: '/studio/state/{name}',
    summary: 'Keep one studio state document',
    body: putStudioStateBodySchema,
    answer: okSchema,
  },
  {
    method: 'delete',
    path: '/studio/state/{name}',
    summary: 'Forget one studio state document',
    answer: okSchema,
  },
  {
    method: 'get',
    path: '/studio/work',
    summary: "Edit's kept work files (images, mask) by key",
    answer: studioWorkListSchema,
  },
  {
    method: 'get',
    path: '/studio/work/{key}',
    summary: 'One kept work file',
    answer: 'bytes',
  },
  {
    method: 'put',
    path: '/studio/work/{key}',
    summary: 'Keep one work file (at most 64 MB; 320 MB together)',
    body: 'bytes',
    answer: okSchema,
  },
  {
    method: 'delete',
    path: '/studio/work/{key}',
    summary: 'Forget one work file',
    answer: okSchema,
  },
  {
    method: 'get',
    path: '/events',
    summary: 'Live events (usage, images, accounts)',
    answer: 'text/event-stream',
  },
];

export const ADMIN_PREFIX = '/api/admin';

/** The admin paths of the OpenAPI document; `toSchema` turns a zod schema into JSON Schema. */
export function adminPaths(toSchema: (schema: z.ZodType, io: 'input' | 'output') => Json): Json {
  const paths: Record<string, Json> = {};
  for (const route of ROUTES) {
    const pathParams = [...route.path.matchAll(/\{(\w+)\}/g)].map((m) => ({
      name: m[1],
      in: 'path',
      required: true,
      schema: { type: 'string' },
    }));
    const queryParams = route.query
      ? Object.entries(
          (toSchema(route.query, 'input').properties ?? {}) as Record<string, unknown>,
        ).map(([name, schema]) => ({ name, in: 'query', required: false, schema }))
      : [];
    const content =
      route.answer === 'text/csv' || route.answer === 'text/event-stream'
        ? { [route.answer]: { schema: { type: 'string' } } }
        : route.answer === 'image'
          ? { 'image/*': { schema: { type: 'string', format: 'binary' } } }
          : route.answer === 'bytes'
            ? { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } }
            : { 'application/json': { schema: toSchema(route.answer, 'output') } };
    paths[`${ADMIN_PREFIX}${route.path}`] = {
      ...paths[`${ADMIN_PREFIX}${route.path}`],
      [route.method]: {
        tags: ['admin'],
        summary: route.summary,
        security: [{ studioSession: [], studioHeader: [] }],
        parameters: [...pathParams, ...queryParams],
        ...(route.body
          ? {
              requestBody: {
                required: true,
                content:
                  route.body === 'bytes'
                    ? {
                        'application/octet-stream': {
                          schema: { type: 'string', format: 'binary' },
                        },
                      }
                    : { 'application/json': { schema: toSchema(route.body, 'input') } },
              },
            }
          : {}),
        responses: {
          '200': { description: 'OK', content },
          default: {
            description: 'An error',
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
          },
        },
      },
    };
  }
  return paths;
}
