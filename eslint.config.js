import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import { gatewayLayering } from './eslint/layeringRule.mjs';

// Dependency arrows point one way (renderer -> shared; gateway -> shared; main -> gateway).
// A lint rule is cheaper than a review, so the wrong arrows fail the build.
const restrict = (patterns) => ['error', { patterns }];

// Inside the gateway, what each folder may import is one table of allow-lists (eslint/layers.mjs,
// rendered in docs/architecture.md); the rule below enforces it, express included.
const gatewayOutward = {
  group: ['electron', '*/main/*', '*/renderer/*', '*/preload/*'],
  message: 'The gateway never imports electron, main or renderer.',
};

export default tseslint.config(
  { ignores: ['out/**', 'dist/**', 'node_modules/**', 'coverage/**', 'test-results/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  {
    files: ['src/shared/**/*.ts'],
    rules: {
      'no-restricted-imports': restrict([
        {
          group: [
            'node:*',
            'electron',
            'react',
            'express',
            '*/gateway/*',
            '*/main/*',
            '*/renderer/*',
          ],
          message: 'src/shared imports nothing but zod.',
        },
      ]),
    },
  },
  {
    files: ['src/gateway/**/*.ts'],
    plugins: { layers: { rules: { gateway: gatewayLayering } } },
    rules: {
      'no-restricted-imports': restrict([gatewayOutward]),
      'layers/gateway': 'error',
    },
  },
  {
    files: ['src/simulator/**/*.ts'],
    rules: {
      'no-restricted-imports': restrict([
        {
          group: ['electron', '*/gateway/*', '*/main/*', '*/renderer/*'],
          message: 'The simulator depends only on shared.',
        },
      ]),
    },
  },
  {
    files: ['src/renderer/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
    plugins: { 'react-hooks': reactHooks },
    rules: {
      ...reactHooks.configs.recommended.rules,
      'no-restricted-imports': restrict([
        {
          group: ['node:*', 'electron', '*/gateway/*', '*/main/*', '*/simulator/*'],
          message: 'The renderer talks to the gateway over HTTP only.',
        },
      ]),
    },
  },
  {
    // No barrels: a folder's files are imported by their own names, so an import says which file
    // it needs and a re-export cannot hide an unused one from knip (issue 24). The gateway's root
    // index.ts is the package's entry for main and the CLI, and re-exports its public types.
    files: ['src/gateway/**/index.ts', 'src/renderer/**/index.{ts,tsx}'],
    ignores: ['src/gateway/index.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: 'ExportAllDeclaration, ExportNamedDeclaration[source]',
          message: 'No barrels: import from the file that defines it.',
        },
      ],
    },
  },
);
