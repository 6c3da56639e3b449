/** The headers an upstream names its answer in: OpenAI's and Atelier's, then a bare variant. */
const REQUEST_ID_HEADERS = ['x-request-id', 'request-id'] as const;

/** Longer ids are not ids: an upstream's header must not grow every usage row. */
export const UPSTREAM_REQUEST_ID_MAX = 128;

/** Visible ASCII without a comma: a row joins several ids with commas. */
const ID = /^[\x21-\x2b\x2d-\x7e]+$/;

/**
 * The id an upstream gave its answer, from the response's headers (undici's: lower-case names,
 * a string or a list), or null when it named none or named something that is no id (too long,
 * spaces, a comma, control characters).
 */
export function upstreamRequestIdOf(
  headers: Record<string, string | string[] | undefined>,
): string | null {
  for (const name of REQUEST_ID_HEADERS) {
    if (!Object.hasOwn(headers, name)) continue;
    const raw = headers[name];
    const value = (Array.isArray(raw) ? raw[0] : raw)?.trim();
    if (value && value.length <= UPSTREAM_REQUEST_ID_MAX && ID.test(value)) return value;
  }
  return null;
}
