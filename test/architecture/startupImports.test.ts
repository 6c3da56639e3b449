import path from 'node:path';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');

/**
 * Packages a gateway uses only for one optional part: the MCP SDK (an agent host at /mcp, or
 * `atelier mcp`) and the PostgreSQL client (a team gateway). Loaded at start they cost every
 * gateway their heap and start time (the MCP SDK and its schemas were 4 MB of a 28 MB heap), so
 * they are imported where they are first used, with `import()`.
 */
const LOADED_WHEN_USED = [/^@modelcontextprotocol\/sdk(\/|$)/, /^pg(\/|$)/];

describe('what the gateway loads at start', () => {
  it('has no static import of a package only an optional part uses, in the bundle every `atelier` command runs', async () => {
    // The same bundling as scripts/build-node.mjs: a bundler hoists a package's static import to
    // the top of the bundle however lazily the module that names it is reached, so this is
    // checked on the bundle, not on the sources.
    const result = await build({
      entryPoints: [path.join(root, 'src/gateway/cli/main.ts')],
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node22',
      packages: 'external',
      define: { __ATELIER_VERSION__: '"test"' },
      write: false,
      metafile: true,
      outdir: path.join(root, 'out/startup-imports-test'),
      logLevel: 'silent',
    });
    const imports = Object.values(result.metafile.outputs).flatMap((output) => output.imports);
    const atStart = new Set(
      imports.filter((i) => i.kind === 'import-statement').map((i) => i.path),
    );
    const whenUsed = new Set(imports.filter((i) => i.kind === 'dynamic-import').map((i) => i.path));

    expect(atStart.size).toBeGreaterThan(10);
    expect([...atStart].filter((name) => LOADED_WHEN_USED.some((p) => p.test(name)))).toEqual([]);
    // The check can fail: the SDK is in the bundle, reached by import() only.
    expect([...whenUsed].some((name) => LOADED_WHEN_USED[0]!.test(name))).toBe(true);
  });
});
