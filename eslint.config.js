import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';

// Dependency arrows point one way (renderer -> shared; gateway -> shared; main -> gateway).
// A lint rule is cheaper than a review, so the wrong arrows fail the build.
const restrict = (patterns) => ['error', { patterns }];

// Inside the gateway each folder states what it never imports (docs/architecture.md has the
// table); a flat-config rule replaces, not merges, so each zone repeats the gateway-wide ones.
const gatewayOutward = {
  group: ['electron', '*/main/*', '*/renderer/*', '*/preload/*'],
  message: 'The gateway never imports electron, main or renderer.',
};
const expressInHttp = {
  group: ['express'],
  message: 'Only http/ imports express: the layers below it take plain values.',
};
const gatewayZones = [
  {
    folder: 'bytes',
    never: ['*'],
    message: 'bytes/ (base64 pieces, JSON splicing, image headers) imports only bytes/.',
  },
  {
    folder: 'upstream',
    never: [
      'http',
      'storage',
      'dispatch',
      'usage',
      'gallery',
      'imageService',
      'validation',
      'oauth',
    ],
    message:
      'upstream/ talks to upstreams: it never imports the HTTP layer, storage, dispatch, usage, the gallery, validation or the sign-in layer (oauth/ imports upstream errors; the composition hands a subscription account its tokens).',
    // The subscription tests' harness signs in for real, as the composition does.
    testSupport: { files: ['src/gateway/upstream/subscription/testing.ts'], allow: ['oauth'] },
  },
  {
    folder: 'validation',
    never: ['http', 'storage', 'dispatch', 'usage', 'gallery', 'imageService', 'keys'],
    message:
      'validation/ reads requests: it never imports the HTTP layer, storage, dispatch, usage or the gallery.',
  },
  {
    folder: 'dispatch',
    never: ['http', 'storage', 'gallery', 'usage', 'imageService', 'keys'],
    message:
      'dispatch/ picks accounts and runs calls: it never imports the HTTP layer, storage, the gallery, usage or the image service.',
  },
  {
    folder: 'imageService',
    never: ['http', 'storage', 'keys'],
    message: 'imageService/ is Express-free: it never imports the HTTP layer or storage.',
  },
  {
    folder: 'responseJobs',
    never: ['http', 'dispatch', 'usage', 'gallery', 'mcp'],
    message:
      'responseJobs/ keeps background responses: it never imports the HTTP layer, dispatch, usage, the gallery or the MCP server; the request runs through the image service like any other.',
  },
  {
    folder: 'mcp',
    never: ['http', 'dispatch', 'storage', 'usage', 'imageService'],
    message:
      'mcp/ is a client of /v1: its tools reach the image service through a /v1 request, never by importing the HTTP layer, dispatch, storage, usage or the image service.',
  },
  {
    folder: 'usage',
    never: ['http', 'dispatch', 'gallery', 'imageService', 'upstream'],
    message:
      'usage/ owns the usage record: it never imports the HTTP layer, dispatch, the gallery or upstream.',
  },
  {
    folder: 'storage',
    never: ['http', 'keys', 'usage', 'dispatch', 'gallery', 'upstream', 'imageService'],
    message: 'storage/ is the database: it never imports the layers that use it.',
  },
  {
    folder: 'gallery',
    never: ['dispatch', 'upstream', 'usage', 'imageService', 'keys', 'validation', 'contentFilter'],
    message:
      'gallery/ keeps images: it never imports dispatch, upstream, usage, the image service, keys, validation or the content filter.',
    // Express handlers kept beside the code they serve: the signed image URLs.
    express: ['src/gateway/gallery/urlImages.ts', 'src/gateway/gallery/urlImages.test.ts'],
  },
  {
    folder: 'contentFilter',
    never: [
      'http',
      'storage',
      'dispatch',
      'usage',
      'gallery',
      'imageService',
      'upstream',
      'keys',
      'validation',
      'limits',
    ],
    message:
      'contentFilter/ reads prompts: it imports only its own files, the error type and shared/.',
  },
  {
    folder: 'accounts',
    never: ['http', 'dispatch', 'upstream', 'usage', 'gallery', 'imageService', 'keys', 'limits'],
    message:
      'accounts/ owns upstream accounts: dispatch and the upstream adapters read them (their record is in core/domain.ts), so it never imports dispatch, upstream, the HTTP layer, usage, the gallery, the image service, keys or limits.',
  },
  {
    folder: 'keys',
    never: ['http', 'dispatch', 'upstream', 'gallery', 'imageService'],
    message:
      'keys/ owns API keys and their repository: it never imports the HTTP layer, dispatch, upstream or the gallery.',
  },
];

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
    rules: { 'no-restricted-imports': restrict([gatewayOutward, expressInHttp]) },
  },
  // Express stays in the HTTP layer (a zone's `express` files are Express code kept beside the
  // code they serve).
  {
    files: ['src/gateway/http/**/*.ts'],
    rules: { 'no-restricted-imports': restrict([gatewayOutward]) },
  },
  // core/ is what every folder may use, so it imports no gateway folder: only src/shared.
  {
    files: ['src/gateway/core/**/*.ts'],
    rules: {
      'no-restricted-imports': restrict([
        gatewayOutward,
        expressInHttp,
        {
          regex: '^\\.\\./(?!\\.\\./shared/)',
          message: 'core/ (errors, domain types, events, tunables) imports only src/shared.',
        },
      ]),
    },
  },
  ...gatewayZones.flatMap(({ folder, never, message, express = [], testSupport }) => {
    const zoneOf = (folders) => ({
      group: folders.flatMap((f) => [`../${f}`, `**/../${f}`, `**/../${f}/*`]),
      message,
    });
    const zone = zoneOf(never);
    return [
      {
        files: [`src/gateway/${folder}/**/*.ts`],
        rules: { 'no-restricted-imports': restrict([gatewayOutward, expressInHttp, zone]) },
      },
      ...(express.length > 0
        ? [{ files: express, rules: { 'no-restricted-imports': restrict([gatewayOutward, zone]) } }]
        : []),
      ...(testSupport
        ? [
            {
              files: testSupport.files,
              rules: {
                'no-restricted-imports': restrict([
                  gatewayOutward,
                  expressInHttp,
                  zoneOf(never.filter((f) => !testSupport.allow.includes(f))),
                ]),
              },
            },
          ]
        : []),
    ];
  }),
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
