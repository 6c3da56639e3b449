/**
 * How the studio calls the gateway. Same origin (the gateway serves the studio), no API key: the
 * HttpOnly session cookie authenticates both /api/admin and /v1 (as the built-in Studio key), and
 * `x-atelier-studio: 1` is the header a page on another origin cannot send (docs/admin-api.md).
 */
export type FetchLike = (input: string, init?: RequestInit) => Promise<Response>;
