// The gateway's layers, in one table: what each folder of src/gateway may import (an allow-list,
// as VS Code's layering rule has it). Every folder may also import core/ and src/shared, and its
// own files. eslint.config.js builds its layering rule from this table, and
// test/docs/architectureMap.test.ts checks docs/architecture.md's "May import" column against it.
// Tests (`*.test.ts`) and test support (`testing.ts`) compose what they need, as the composition
// root does, and are not held to the table.

/** The folder of the files at src/gateway's root: the composition (createGateway, its parts). */
export const ROOT = '(root)';

/** @type {Record<string, { may: string[], express?: boolean }>} */
export const GATEWAY_LAYERS = {
  core: { may: [] },
  bytes: { may: [] },
  secrets: { may: [] },
  billing: { may: [] },
  contentFilter: { may: [] },
  storage: { may: ['billing'] },
  oauth: { may: ['secrets'] },
  upstream: { may: ['bytes', 'secrets'] },
  accounts: { may: ['oauth', 'secrets', 'storage'] },
  dispatch: { may: ['accounts', 'bytes', 'upstream'] },
  validation: { may: ['bytes', 'upstream'] },
  limits: { may: ['billing', 'storage'] },
  usage: { may: ['billing', 'storage'] },
  keys: { may: ['limits', 'storage'] },
  gallery: { may: ['billing', 'bytes', 'storage'] },
  openapi: { may: ['validation'] },
  responseJobs: { may: ['bytes', 'imageService', 'storage', 'upstream'] },
  mcp: { may: ['bytes', 'gallery', 'keys', 'limits', 'openapi', 'upstream'] },
  imageService: {
    may: [
      'billing',
      'bytes',
      'contentFilter',
      'dispatch',
      'gallery',
      'limits',
      'upstream',
      'usage',
      'validation',
    ],
  },
  http: {
    may: [
      'accounts',
      'billing',
      'bytes',
      'dispatch',
      'gallery',
      'imageService',
      'keys',
      'limits',
      'mcp',
      'oauth',
      'openapi',
      'responseJobs',
      'secrets',
      'storage',
      'upstream',
      'usage',
      'validation',
    ],
    express: true,
  },
  [ROOT]: {
    may: [
      'accounts',
      'billing',
      'bytes',
      'contentFilter',
      'dispatch',
      'gallery',
      'http',
      'imageService',
      'keys',
      'limits',
      'mcp',
      'oauth',
      'openapi',
      'responseJobs',
      'secrets',
      'storage',
      'upstream',
      'usage',
      'validation',
    ],
  },
  cli: {
    may: [ROOT, 'accounts', 'billing', 'http', 'keys', 'limits', 'oauth', 'secrets', 'storage'],
    express: true,
  },
};

/** What every folder may import besides its own list. */
export const EVERYONE_MAY = ['core'];

/** Whether `from` may import `to` (both folders of src/gateway, or ROOT). */
export function mayImport(from, to) {
  if (from === to || EVERYONE_MAY.includes(to)) return true;
  return GATEWAY_LAYERS[from]?.may.includes(to) ?? false;
}

/** The folders whose files may import express. */
export function expressFolders() {
  return Object.entries(GATEWAY_LAYERS)
    .filter(([, layer]) => layer.express === true)
    .map(([folder]) => folder);
}

/**
 * A folder's "May import" cell in docs/architecture.md's table (besides core/ and src/shared,
 * which every folder may import).
 */
export function mayImportCell(folder) {
  const layer = GATEWAY_LAYERS[folder];
  if (!layer) return '';
  const names = layer.may.map((f) => (f === ROOT ? 'the root' : f));
  if (layer.express) names.push('express');
  if (names.length > 0) return names.join(', ');
  return folder === 'core' ? 'only `src/shared`' : 'nothing more';
}
