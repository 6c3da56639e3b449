import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { defineConfig } from 'electron-vite';
import type { Plugin } from 'vite';
import react from '@vitejs/plugin-react';

/**
 * electron-vite forces `base: './'` for production renderer builds. The gateway serves
 * out/renderer at `/` to Electron and to any browser, so absolute asset URLs are the right
 * choice: they keep working on deep links once the studio gains client-side routes.
 */
function servedFromRoot(): Plugin {
  return { name: 'atelier:served-from-root', config: () => ({ base: '/' }) };
}

const pkg = JSON.parse(readFileSync(resolve(import.meta.dirname, 'package.json'), 'utf8')) as {
  version: string;
};

export default defineConfig({
  main: {
    // The gateway reports this in /api/status (src/gateway/version.ts); scripts/build-node.mjs
    // injects the same for the CLI.
    define: { __ATELIER_VERSION__: JSON.stringify(pkg.version) },
    build: {
      // Every package in `dependencies` (express, better-sqlite3, sharp, ...) stays a runtime
      // import from node_modules: native modules cannot be bundled.
      externalizeDeps: true,
      lib: { entry: resolve(import.meta.dirname, 'src/main/index.ts') },
    },
  },
  preload: {
    build: {
      externalizeDeps: true,
      lib: { entry: resolve(import.meta.dirname, 'src/preload/index.ts') },
      // A sandboxed preload cannot be an ES module, so it is one CommonJS file.
      rolldownOptions: { output: { format: 'cjs' } },
    },
  },
  renderer: {
    root: resolve(import.meta.dirname, 'src/renderer'),
    plugins: [react(), servedFromRoot()],
    build: {
      // The same build runs in Electron's Chromium and in whatever browser opens the gateway,
      // so target the language level rather than one Chrome version.
      target: 'es2022',
      // Browsers download this over the network too; electron-vite leaves it unminified.
      minify: true,
      rolldownOptions: { input: resolve(import.meta.dirname, 'src/renderer/index.html') },
    },
  },
});
