import Ajv2020 from 'ajv/dist/2020.js';
import type { ValidateFunction } from 'ajv';
import { openApiDocument } from '../../src/gateway/openapi/document';

/**
 * Every reply a gateway suite receives, held against /v1/openapi.json: the status must be one the
 * document lists for that operation, and a JSON body must match the schema it gives for that
 * status. A test's fetch to a registered gateway throws with the mismatch, so a reply the
 * document does not describe fails the suite that received it.
 */

interface Operation {
  responses: Record<string, { content?: Record<string, { schema?: object }> }>;
}
type Document = { paths: Record<string, Record<string, Operation>>; components: object };

interface Checker {
  doc: Document;
  ajv: Ajv2020;
  /** Path templates as patterns, most specific (fewest parameters) first. */
  routes: Array<{ template: string; pattern: RegExp; params: number }>;
}

// Built on first use: the setup file runs in every test file, most of which reach no gateway.
let checker: Checker | null = null;
function check(): Checker {
  if (checker) return checker;
  const doc = openApiDocument() as unknown as Document;
  const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true });
  ajv.addSchema({ $id: 'atelier', components: doc.components }, 'atelier');
  const routes = Object.keys(doc.paths)
    .map((template) => ({
      template,
      pattern: new RegExp(`^${template.replace(/\{\w+\}/g, '[^/]+').replace(/\./g, '\\.')}$`),
      params: (template.match(/\{/g) ?? []).length,
    }))
    .sort((a, b) => a.params - b.params);
  checker = { doc, ajv, routes };
  return checker;
}

const compiled = new Map<object, ValidateFunction>();
function validatorOf(schema: object): ValidateFunction {
  let validate = compiled.get(schema);
  if (!validate) {
    // Schemas inside paths refer to components by '#/components/...': resolve them in 'atelier'.
    const rebased = JSON.parse(
      JSON.stringify(schema).replaceAll('"#/components/', '"atelier#/components/'),
    ) as object;
    validate = check().ajv.compile(rebased);
    compiled.set(schema, validate);
  }
  return validate;
}

const errorValidator = () => check().ajv.getSchema('atelier#/components/schemas/Error')!;

/** What is wrong with a reply, by the document; null when it matches. */
export function replyProblem(
  method: string,
  pathname: string,
  status: number,
  contentType: string,
  body: unknown,
): string | null {
  const { doc, ajv, routes } = check();
  const isJson = contentType.includes('application/json');
  const route = routes.find((r) => r.pattern.test(pathname));
  const operation = route ? doc.paths[route.template]![method.toLowerCase()] : undefined;
  const where = `${method} ${pathname} answered ${status}`;
  if (!operation) {
    // Not a documented operation (an unknown path, the studio's pages, /login): an error it
    // answers is still the one error body.
    if (status < 400 || !isJson) return null;
    const validate = errorValidator();
    return validate(body)
      ? null
      : `${where}: not an Error body: ${ajv.errorsText(validate.errors)}`;
  }
  const response = operation.responses[String(status)] ?? operation.responses.default;
  if (!response) {
    return `${where}, a status the document does not list (it lists ${Object.keys(operation.responses).join(', ')})`;
  }
  if (!isJson) return null;
  const media = response.content?.['application/json'];
  if (!media) return `${where} with JSON, but the document gives no JSON body for it`;
  const schema = media.schema;
  // A JSON body the document leaves open (the document itself).
  if (!schema || Object.keys(schema).length === 0) return null;
  const validate = validatorOf(schema);
  return validate(body) ? null : `${where}: ${ajv.errorsText(validate.errors)}`;
}

/** The origins of the gateways under test; replies from anything else (the simulator) pass. */
const gatewayOrigins = new Set<string>();

export function checkRepliesOf(url: string): void {
  gatewayOrigins.add(new URL(url).origin);
}

const plainFetch = globalThis.fetch;

/**
 * fetch, plus the check above for a registered gateway's replies. A JSON reply is read whole
 * (and handed back as a fresh Response with the same status and headers); streams, images and
 * CSV pass through untouched after their status is checked.
 */
export async function checkedFetch(
  input: string | URL | Request,
  init?: RequestInit,
): Promise<Response> {
  const res = await plainFetch(input, init);
  const url = new URL(input instanceof Request ? input.url : String(input));
  if (!gatewayOrigins.has(url.origin)) return res;
  const method = init?.method ?? (input instanceof Request ? input.method : 'GET');
  const contentType = res.headers.get('content-type') ?? '';
  if (!contentType.includes('application/json') || method === 'HEAD') {
    const problem = replyProblem(method, url.pathname, res.status, contentType, undefined);
    if (problem) throw new Error(`OpenAPI: ${problem}`);
    return res;
  }
  const text = await res.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new Error(
      `OpenAPI: ${method} ${url.pathname} answered invalid JSON: ${text.slice(0, 200)}`,
    );
  }
  const problem = replyProblem(method, url.pathname, res.status, contentType, body);
  if (problem) throw new Error(`OpenAPI: ${problem}`);
  return new Response(text, {
    status: res.status,
    statusText: res.statusText,
    headers: res.headers,
  });
}

/** For the gateway suites (vitest setupFiles): their plain fetch calls are checked too. */
export function checkEveryFetch(): void {
  globalThis.fetch = checkedFetch as typeof fetch;
}
