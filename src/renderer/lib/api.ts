/** The only module that talks to the gateway over HTTP. Same-origin: the gateway serves us. */

export interface GatewayStatus {
  name: string;
  version: string;
  upstream: { kind: 'simulator' | 'accounts'; label: string };
  /** The gateway's base URL, e.g. http://127.0.0.1:8787 */
  address: string;
}

export class ApiError extends Error {
  override name = 'ApiError';
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

export function isGatewayStatus(value: unknown): value is GatewayStatus {
  if (!isRecord(value) || !isRecord(value.upstream)) return false;
  const { name, version, address, upstream } = value;
  return (
    typeof name === 'string' &&
    typeof version === 'string' &&
    typeof address === 'string' &&
    (upstream.kind === 'simulator' || upstream.kind === 'accounts') &&
    typeof upstream.label === 'string'
  );
}

export async function fetchStatus(fetchImpl: typeof fetch = fetch): Promise<GatewayStatus> {
  let response: Response;
  try {
    response = await fetchImpl('/api/status', { headers: { Accept: 'application/json' } });
  } catch {
    throw new ApiError('The gateway did not answer. Is Atelier still running?');
  }
  if (!response.ok)
    throw new ApiError(`GET /api/status answered ${response.status}`, response.status);
  const body: unknown = await response.json().catch(() => undefined);
  if (!isGatewayStatus(body)) throw new ApiError('GET /api/status answered an unexpected body');
  return body;
}
