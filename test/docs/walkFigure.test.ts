import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');
const map = fs.readFileSync(path.join(root, 'docs/architecture.md'), 'utf8');

/** The map's figure: "It gives **N files**: http 11, http/replies 4, ...;" as numbers by folder. */
function statedWalk(markdown: string): { total: number; byFolder: Record<string, number> } | null {
  const match = /It gives \*\*(\d+) files\*\*: ([^;]+);/.exec(markdown);
  if (!match) return null;
  const byFolder: Record<string, number> = {};
  for (const part of match[2]!.split(/,\s*/)) {
    const [folder, count] = part.trim().split(/\s+/);
    byFolder[folder!] = Number(count);
  }
  return { total: Number(match[1]), byFolder };
}

/** `npm run walk`'s report: its total and its count per folder. */
function measuredWalk(stdout: string): { total: number; byFolder: Record<string, number> } {
  const byFolder: Record<string, number> = {};
  for (const m of stdout.matchAll(/^ {2}(\S+)\/\s+(\d+)\s/gm)) byFolder[m[1]!] = Number(m[2]);
  return { total: Number(/total\s+(\d+) gateway files/.exec(stdout)?.[1]), byFolder };
}

describe("docs/architecture.md's request walk", () => {
  it('states the figure `npm run walk` measures, folder by folder', { timeout: 300_000 }, () => {
    const stated = statedWalk(map);
    expect(stated).not.toBeNull();
    const run = spawnSync(process.execPath, ['scripts/request-walk.mjs'], {
      cwd: root,
      encoding: 'utf8',
    });
    expect(run.status, run.stderr).toBe(0);
    const measured = measuredWalk(run.stdout);
    expect(measured.total).toBeGreaterThan(30);
    expect(measured).toEqual(stated);
    expect(run.stdout).toMatch(/src\/gateway\/index\.ts ran: no/);
  });
});
