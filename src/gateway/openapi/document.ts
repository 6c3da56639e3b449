import { z } from 'zod';
import { VERSION } from '../core/version';
import { adminPaths } from './adminPaths';
import {
  completedImageEventSchema,
  errorEventSchema,
  errorSchema,
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
  413: 'The body is over the endpoint limit.',
  429: "usage_limit_reached (the upstream account's usage window; retry-after), rate_limit_exceeded, gateway_busy, concurrency_limit_exceeded.",
  502: 'Upstream request failed (code says how: upstream_no_image, upstream_timeout, ...).',
  503: 'No account available (upstream_unavailable: every account rests briefly after outages; retry-after).',
};

const imageStream = {
  'text/event-stream': {
    schema: { type: 'string' },
    itemSchema: {
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
    ...errors(400, 401, 403, 413, 429, 502, 503),
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
        studioSession: { type: 'apiKey', in: 'cookie', name: 'atelier_session' },
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
            ...errors(400, 401, 403, 413, 429, 502, 503),
          },
        },
      },
      '/v1/models': {
        get: {
          operationId: 'listModels',
          summary: 'Text/agent models and both image model ids',
          responses: {
            '200': { description: 'The models', content: json('ModelList') },
            ...errors(401),
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
            ...errors(401, 404),
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
          responses: { '200': { description: 'OpenAPI 3.1', content: { 'application/json': {} } } },
        },
      },
      ...adminPaths(toSchema),
    },
  };
  return cached;
}
