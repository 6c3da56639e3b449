import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';

// Dependency arrows point one way (renderer -> shared; gateway -> shared; main -> gateway).
// A lint rule is cheaper than a review, so the wrong arrows fail the build.
const restrict = (patterns) => ['error', { patterns }];

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
    rules: {
      'no-restricted-imports': restrict([
        {
          group: ['electron', '*/main/*', '*/renderer/*', '*/preload/*'],
          message: 'The gateway never imports electron, main or renderer.',
        },
      ]),
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
);
