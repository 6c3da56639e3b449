// The lint rule of the gateway's layers (eslint/layers.mjs): an import from one folder of
// src/gateway into another must be on the importing folder's allow-list, every folder must have
// a row, and only the folders marked `express` may import express.
import fs from 'node:fs';
import path from 'node:path';
import { GATEWAY_LAYERS, ROOT, mayImport } from './layers.mjs';

const gatewayDir = path.resolve(import.meta.dirname, '../src/gateway');

/** The layer of a file: its folder under src/gateway, ROOT at its root, null outside it. */
export function layerOf(file) {
  const rel = path.relative(gatewayDir, file);
  if (rel === '' || rel.startsWith('..') || path.isAbsolute(rel)) return null;
  const parts = rel.split(path.sep);
  if (parts.length > 1) return parts[0];
  // `../oauth` names the folder (its index), not a file at the root.
  return fs.existsSync(file) && fs.statSync(file).isDirectory() ? parts[0] : ROOT;
}

/** How a message names a layer. */
function nameOf(layer) {
  return layer === ROOT ? "the gateway's root (composition)" : `${layer}/`;
}

/** Tests and their support compose what they need, as the composition root does. */
function isTestFile(file) {
  return /\.test\.tsx?$/.test(file) || path.basename(file) === 'testing.ts';
}

export const gatewayLayering = {
  meta: {
    type: 'problem',
    docs: { description: "Imports between the gateway's folders follow eslint/layers.mjs" },
    schema: [],
    messages: {
      notAllowed:
        '{{from}} may not import {{to}} (eslint/layers.mjs: {{from}} may import {{allowed}}; docs/architecture.md has the table).',
      noLayer:
        'src/gateway/{{from}}/ has no row in eslint/layers.mjs: add one saying what it may import.',
      express: 'Only {{folders}} import express: {{from}}/ takes plain values (eslint/layers.mjs).',
    },
  },
  create(context) {
    const file = context.filename;
    const from = layerOf(file);
    if (from === null || isTestFile(file)) return {};
    const layer = GATEWAY_LAYERS[from];
    const expressFolders = Object.keys(GATEWAY_LAYERS)
      .filter((folder) => GATEWAY_LAYERS[folder].express)
      .map((folder) => `${folder}/`)
      .join(' and ');
    const check = (node, source) => {
      if (typeof source !== 'string') return;
      if (source === 'express' || source.startsWith('express/')) {
        if (!layer?.express)
          context.report({ node, messageId: 'express', data: { from, folders: expressFolders } });
        return;
      }
      if (!source.startsWith('.') || !layer) return;
      const to = layerOf(path.resolve(path.dirname(file), source));
      if (to === null || mayImport(from, to)) return;
      const allowed = ['core', ...layer.may].map(nameOf);
      context.report({
        node,
        messageId: 'notAllowed',
        data: { from: nameOf(from), to: nameOf(to), allowed: allowed.join(', ') },
      });
    };
    return {
      Program(node) {
        if (!layer) context.report({ node, messageId: 'noLayer', data: { from } });
      },
      ImportDeclaration: (node) => check(node, node.source.value),
      ExportNamedDeclaration: (node) => node.source && check(node, node.source.value),
      ExportAllDeclaration: (node) => check(node, node.source.value),
      ImportExpression: (node) => node.source.type === 'Literal' && check(node, node.source.value),
    };
  },
};
