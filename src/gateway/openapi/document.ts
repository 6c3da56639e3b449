/** Placeholder until the schemas land. */
export function openApiDocument(): Record<string, unknown> {
  return { openapi: '3.1.0', info: { title: 'Atelier', version: '0' }, paths: {} };
}
