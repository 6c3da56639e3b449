import { IMAGE_MODELS } from '../../../shared/models';

/** The name of the environment variable the snippets read the key from. */
export const KEY_VARIABLE = 'ATELIER_KEY';

/** The key a snippet is written for: shown by name and prefix only (the secret is never kept). */
export interface SnippetKey {
  name: string;
  prefix: string;
}

const describe = (key: SnippetKey | null) =>
  key ? `key "${key.name}" (atl_${key.prefix}…)` : 'your key';

/** The /v1 base URL OpenAI clients need. */
export function baseUrl(address: string): string {
  return `${address.replace(/\/+$/, '')}/v1`;
}

export function curlSnippet(address: string, key: SnippetKey | null): string {
  const body = JSON.stringify(
    { model: IMAGE_MODELS[0], prompt: 'A lighthouse at dusk, watercolour', size: '1024x1024' },
    null,
    2,
  );
  return [
    `# ${KEY_VARIABLE} holds ${describe(key)}: export ${KEY_VARIABLE}=atl_...`,
    `curl ${baseUrl(address)}/images/generations \\`,
    `  -H "Authorization: Bearer $${KEY_VARIABLE}" \\`,
    `  -H "Content-Type: application/json" \\`,
    `  -d '${body.replaceAll('\n', '\n  ')}' \\`,
    `  | jq -r '.data[0].b64_json' | base64 --decode > image.png`,
  ].join('\n');
}

export function nodeSnippet(address: string, key: SnippetKey | null): string {
  return [
    `// npm install openai`,
    `import fs from 'node:fs';`,
    `import OpenAI from 'openai';`,
    ``,
    `// ${KEY_VARIABLE} holds ${describe(key)}.`,
    `const client = new OpenAI({`,
    `  baseURL: '${baseUrl(address)}',`,
    `  apiKey: process.env.${KEY_VARIABLE},`,
    `});`,
    ``,
    `const result = await client.images.generate({`,
    `  model: '${IMAGE_MODELS[0]}',`,
    `  prompt: 'A lighthouse at dusk, watercolour',`,
    `  size: '1024x1024',`,
    `});`,
    `fs.writeFileSync('image.png', Buffer.from(result.data[0].b64_json, 'base64'));`,
  ].join('\n');
}
