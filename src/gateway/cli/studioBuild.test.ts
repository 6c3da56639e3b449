import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ensureStudio, realStudioBuildDeps } from './studioBuild';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

/** A project folder with the studio's sources and, when asked, a built studio. */
function project({ built, sources }: { built: boolean; sources: boolean }) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-project-'));
  dirs.push(root);
  if (sources) {
    fs.mkdirSync(path.join(root, 'src', 'renderer'), { recursive: true });
    fs.writeFileSync(path.join(root, 'src', 'renderer', 'index.html'), '<!doctype html>');
  }
  const studio = path.join(root, 'out', 'renderer');
  if (built) {
    fs.mkdirSync(studio, { recursive: true });
    fs.writeFileSync(path.join(studio, 'index.html'), '<!doctype html>');
  }
  return { root, studio };
}

/** A stand-in build tool: a real Node script that writes out/renderer/index.html, or fails. */
function buildTool(root: string, succeeds: boolean): string {
  const script = path.join(root, 'fake-electron-vite.mjs');
  fs.writeFileSync(
    script,
    succeeds
      ? `import fs from 'node:fs';
         if (process.argv[2] !== 'build') process.exit(2);
         fs.mkdirSync('out/renderer', { recursive: true });
         fs.writeFileSync('out/renderer/index.html', '<!doctype html>');`
      : `console.error('build broke'); process.exit(1);`,
  );
  return script;
}

describe('ensureStudio (atelier serve on a checkout whose studio is not built)', () => {
  it('leaves a built studio alone', () => {
    const { studio } = project({ built: true, sources: true });
    const lines: string[] = [];
    expect(ensureStudio(studio, (l) => lines.push(l)).kind).toBe('ready');
    expect(lines).toEqual([]);
  });

  it('builds it once from the sources, saying so', () => {
    const { root, studio } = project({ built: false, sources: true });
    const lines: string[] = [];
    const state = ensureStudio(studio, (l) => lines.push(l), {
      ...realStudioBuildDeps,
      findElectronVite: () => buildTool(root, true),
    });
    expect(state.kind).toBe('built');
    expect(fs.existsSync(path.join(studio, 'index.html'))).toBe(true);
    expect(lines[0]).toMatch(/not built yet; building it once/);
    expect(lines[1]).toMatch(/^atelier serve: built the studio in \d+\.\d s$/);
  });

  it('reports a failed build rather than serving a 404', () => {
    const { root, studio } = project({ built: false, sources: true });
    const state = ensureStudio(studio, () => undefined, {
      ...realStudioBuildDeps,
      findElectronVite: () => buildTool(root, false),
    });
    expect(state).toEqual({
      kind: 'missing',
      reason: 'building the studio failed (the messages above say why)',
    });
  });

  it('says why when there is nothing to build from', () => {
    const { studio } = project({ built: false, sources: false });
    const state = ensureStudio(studio, () => undefined);
    expect(state.kind).toBe('missing');
    expect(state.kind === 'missing' && state.reason).toMatch(/sources or build tools/);
  });
});
