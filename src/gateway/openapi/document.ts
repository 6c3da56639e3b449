import { z } from 'zod';
import { VERSION } from '../core/version';
import { adminPaths } from './adminPaths';
import {
  completedImageEventSchema,
  errorEventSchema,
  errorSchema,
  healthSchema,
  imageEditJsonSchema,
  imageEditMultipartSchema,
  imageGenerationRequestSchema,
  imagesResponseSchema,
  modelListSchema,
  modelSchema,
  partialImageEventSchema,
  responsesRequestSchema,
  responsesResponseSchema,
} from './v1Schemas';

type Json = Record<string, unknown>;

/** The named schemas of `components.schemas`, each generated from its zod schema. */
const COMPONENTS: Record<string, z.ZodType> = {
  ImageGenerationRequest: imageGenerationRequestSchema,
  ImageEditMultipartRequest: imageEditMultipartSchema,
  ImageEditJsonRequest: imageEditJsonSchema,
  ImagesResponse: imagesResponseSchema,
  PartialImageEvent: partialImageEventSchema,
  CompletedImageEvent: completedImageEventSchema,
  ErrorEvent: errorEventSchema,
  Error: errorSchema,
  Model: modelSchema,
  ModelList: modelListSchema,
  ResponsesRequest: responsesRequestSchema,
  Response: responsesResponseSchema,
  Health: healthSchema,
};

/** JSON Schema 2020-12, as OpenAPI 3.1 takes it; requests as a client writes them. */
function toSchema(schema: z.ZodType, io: 'input' | 'output'): Json {
  const json = z.toJSONSchema(schema, {
    target: 'draft-2020-12',
    io,
    unrepresentable: 'any',
  }) as Json;
  delete json.$schema;
  return json;
}

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const json = (name: string) => ({ 'application/json': { schema: ref(name) } });

const errors = (...statuses: number[]): Json =>
  Object.fromEntries(
    statuses.map((status) => [
      String(status),
      { description: ERROR_MEANINGS[status] ?? 'Error', content: json('Error') },
    ]),
  );

const ERROR_MEANINGS: Record<number, string> = {
  400: 'A bad parameter (param names it), or the upstream rejected the request.',
  401: 'Missing, unknown, disabled or deleted key (INVALID_API_KEY).',
  403: 'A Host or Origin this gateway does not serve.',
  404: 'Unknown model or path.',
  408: 'The request body stalled before it was complete (request_timeout); the connection closes.',
  413: 'The body is over the endpoint limit.',
  415: 'A Content-Encoding or charset the gateway does not decode.',
  499: 'The studio cancelled this run (client_cancelled); what was delivered is billed.',
  500: 'Internal error in the gateway (internal_error); the request id identifies it in the log.',
  429: "usage_limit_reached (the upstream account's usage window; retry-after), rate_limit_exceeded, budget_exceeded, gateway_busy, concurrency_limit_exceeded; a key's own limits add error.limit.",
  502: 'Upstream request failed (code says how: upstream_no_image, upstream_timeout, ...).',
  503: 'No account available (upstream_unavailable: every account rests briefly after outages; retry-after), the usage log cannot be written (usage_log_unavailable: disk full, read-only; nothing starts until it can), or the gateway is stopping (server_draining; retry-after).',
};

/** What every route can answer before its handler runs: Host/Origin guards, unknown paths. */
const GUARD_ERRORS = [403, 404] as const;
/** What a route with a request body can answer besides: a stalled or mis-encoded body. */
const BODY_ERRORS = [400, 408, 413, 415] as const;
/** Every /v1 route past the guards: no key, a key's limits, the drain, a fault of its own. */
const V1_ERRORS = [401, 429, 500, 503] as const;
/** Routes that do upstream work: the upstream's failures, and the studio's Cancel. */
const WORK_ERRORS = [499, 502] as const;

// OpenAPI 3.1 has no schema for one event of a stream (3.2's itemSchema): the events are named
// in the description and as an extension, so 3.1 tools accept the document.
const imageStream = {
  'text/event-stream': {
    schema: {
      type: 'string',
      description:
        'Server-sent events; each data line is a PartialImageEvent, CompletedImageEvent or ErrorEvent.',
    },
    'x-atelier-event-schema': {
      oneOf: [ref('PartialImageEvent'), ref('CompletedImageEvent'), ref('ErrorEvent')],
    },
  },
};

const imageOperation = (summary: string, request: Json): Json => ({
  summary,
  security: [{ bearer: [] }],
  parameters: [
    {
      name: 'x-atelier-fallback',
      in: 'header',
      required: false,
      schema: { type: 'string', enum: ['ladder'] },
      description: 'Turns on the fallback ladder of spec 7.3 for this request.',
    },
  ],
  requestBody: { required: true, content: request },
  responses: {
    '200': {
      description: 'The images (JSON), or image events with stream: true.',
      headers: {
        'x-request-id': { schema: { type: 'string' } },
        'x-atelier-fallback-step': { schema: { type: 'string' } },
        'x-atelier-warning': {
          schema: { type: 'string' },
          description: 'DALL-E-era values that were ignored or read differently.',
        },
      },
      content: { ...json('ImagesResponse'), ...imageStream },
    },
    ...errors(...GUARD_ERRORS, ...BODY_ERRORS, ...V1_ERRORS, ...WORK_ERRORS),
  },
});

let cached: Json | null = null;

/** The OpenAPI 3.1 document of /v1 and the admin API, served at GET /v1/openapi.json. */
export function openApiDocument(): Json {
  cached ??= {
    openapi: '3.1.0',
    info: {
      title: 'Atelier image gateway',
      version: VERSION,
      description:
        'OpenAI-compatible image API (see docs/api.md). Every /v1 call needs Authorization: Bearer <key>.',
    },
    servers: [{ url: '/', description: 'This gateway' }],
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer' },
        // The admin API is the studio's: its session cookie and the header a page cannot forge
        // cross-site (docs/admin-api.md).
        // The cookie's name carries the port served: atelier_session_<port>.
        studioSession: { type: 'apiKey', in: 'cookie', name: 'atelier_session_<port>' },
        studioHeader: { type: 'apiKey', in: 'header', name: 'x-atelier-studio' },
      },
      schemas: Object.fromEntries(
        Object.entries(COMPONENTS).map(([name, schema]) => [
          name,
          toSchema(schema, name.endsWith('Request') ? 'input' : 'output'),
        ]),
      ),
    },
    security: [{ bearer: [] }],
    paths: {
      '/v1/images/generations': {
        post: {
          operationId: 'createImage',
          ...imageOperation('Generate images (spec 4.1)', json('ImageGenerationRequest')),
        },
      },
      '/v1/images/edits': {
        post: {
          operationId: 'createImageEdit',
          ...imageOperation('Edit images (spec 4.2)', {
            'multipart/form-data': { schema: ref('ImageEditMultipartRequest') },
            ...json('ImageEditJsonRequest'),
          }),
        },
      },
      '/v1/responses': {
        post: {
          operationId: 'createResponse',
          summary: 'A text/agent model with the image_generation tool (spec 4.3)',
          requestBody: { required: true, content: json('ResponsesRequest') },
          responses: {
            '200': {
              description:
                "The Responses object, or the upstream's Responses events with stream: true.",
              content: { ...json('Response'), 'text/event-stream': { schema: { type: 'string' } } },
            },
            ...errors(...GUARD_ERRORS, ...BODY_ERRORS, ...V1_ERRORS, ...WORK_ERRORS),
          },
        },
      },
      '/v1/models': {
        get: {
          operationId: 'listModels',
          summary: 'Text/agent models and both image model ids',
          responses: {
            '200': { description: 'The models', content: json('ModelList') },
            ...errors(...GUARD_ERRORS, ...V1_ERRORS),
          },
        },
      },
      '/v1/models/{model}': {
        get: {
          operationId: 'retrieveModel',
          summary: 'One model',
          parameters: [{ name: 'model', in: 'path', required: true, schema: { type: 'string' } }],
          responses: {
            '200': { description: 'The model', content: json('Model') },
            ...errors(...GUARD_ERRORS, ...V1_ERRORS),
          },
        },
      },
      '/v1/images/files/{name}': {
        get: {
          operationId: 'getImageByUrl',
          summary: 'An image answered with response_format url (the signed URL is the credential)',
          security: [],
          parameters: [
            { name: 'name', in: 'path', required: true, schema: { type: 'string' } },
            { name: 'expires', in: 'query', required: true, schema: { type: 'integer' } },
            { name: 'signature', in: 'query', required: true, schema: { type: 'string' } },
          ],
          responses: {
            '200': {
              description: 'The image bytes',
              content: {
                'image/png': { schema: { type: 'string', format: 'binary' } },
                'image/jpeg': { schema: { type: 'string', format: 'binary' } },
                'image/webp': { schema: { type: 'string', format: 'binary' } },
              },
            },
            ...errors(...GUARD_ERRORS),
            '404': { description: 'No such image, or a bad signature', content: json('Error') },
            '410': { description: 'The URL expired', content: json('Error') },
          },
        },
      },
      '/v1/openapi.json': {
        get: {
          operationId: 'getOpenApi',
          summary: 'This document',
          security: [],
          responses: {
            '200': { description: 'OpenAPI 3.1', content: { 'application/json': {} } },
            ...errors(...GUARD_ERRORS),
          },
        },
      },
      '/healthz': {
        get: {
          operationId: 'getHealth',
          summary: 'For a load balancer: database, migrations and drain (docs/operations.md)',
          security: [],
          responses: {
            '200': { description: 'Takes work', content: json('Health') },
            '503': {
              description: 'Draining, or the database does not answer or is another build',
              content: json('Health'),
            },
            ...errors(...GUARD_ERRORS),
          },
        },
      },
      ...adminPaths(toSchema),
    },
  };
  return cached;
}
