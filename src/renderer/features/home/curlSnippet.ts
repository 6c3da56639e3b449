import { IMAGE_MODELS } from '../../../shared/models';

/** The first call a developer makes against their local gateway. */
export function curlSnippet(address: string): string {
  const body = JSON.stringify(
    { model: IMAGE_MODELS[0], prompt: 'A lighthouse at dusk, watercolour', size: '1024x1024' },
    null,
    2,
  );
  return [
    `curl ${address.replace(/\/+$/, '')}/v1/images/generations \\`,
    `  -H "Authorization: Bearer <your key>" \\`,
    `  -H "Content-Type: application/json" \\`,
    `  -d '${body.replaceAll('\n', '\n  ')}'`,
  ].join('\n');
}
