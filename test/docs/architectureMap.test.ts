import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { GATEWAY_LAYERS, mayImportCell } from '../../eslint/layers.mjs';

const root = path.resolve(import.meta.dirname, '../..');
const gatewayDir = path.join(root, 'src/gateway');
const map = fs.readFileSync(path.join(root, 'docs/architecture.md'), 'utf8');

/** The rows of the map's folder table: the folder (from `name/`) and its "May import" cell. */
function tableRows(markdown: string): Array<{ folder: string; mayImport: string }> {
  const start = markdown.indexOf("## The gateway's folders");
  if (start < 0) return [];
  const section = markdown.slice(start, markdown.indexOf('\n## ', start + 1));
  return [...section.matchAll(/^\|\s*`([A-Za-z]+)\/`\s*\|[^|]*\|([^|]*)\|/gm)].map((m) => ({
    folder: m[1]!,
    mayImport: m[2]!.trim(),
  }));
}

/** The folders the map's table names: the first cell of each row, as `name/`. */
function tableFolders(markdown: string): string[] {
  const start = markdown.indexOf("## The gateway's folders");
  if (start < 0) return [];
  const section = markdown.slice(start, markdown.indexOf('\n## ', start + 1));
  return [...section.matchAll(/^\|\s*`([A-Za-z]+)\/`\s*\|/gm)].map((m) => m[1]!);
}

describe("docs/architecture.md's map of the gateway", () => {
  const folders = fs
    .readdirSync(gatewayDir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
  const named = tableFolders(map);

  it('has a row for every folder of src/gateway', () => {
    expect(folders.length).toBeGreaterThan(10);
    expect(folders.filter((folder) => !named.includes(folder))).toEqual([]);
  });

  it('names no folder that does not exist', () => {
    expect(named.filter((folder) => !folders.includes(folder))).toEqual([]);
  });

  it('says what each folder may import as eslint/layers.mjs does, and every folder has a layer', () => {
    const rows = tableRows(map);
    expect(rows.length).toBe(folders.length);
    expect(folders.filter((folder) => !(folder in GATEWAY_LAYERS))).toEqual([]);
    const differing = rows.filter((row) => row.mayImport !== mayImportCell(row.folder));
    expect(
      differing.map(
        (row) =>
          `${row.folder}: '${row.mayImport}' in the map, '${mayImportCell(row.folder)}' in the table`,
      ),
    ).toEqual([]);
  });

  it('names every file of its hop table that it points at', () => {
    const start = map.indexOf("## A generation's path");
    const section = map.slice(start, map.indexOf('\n## ', start + 1));
    const files = [...section.matchAll(/`([a-zA-Z/]+\.ts)`/g)].map((m) => m[1]!);
    expect(files.length).toBeGreaterThan(15);
    expect(files.filter((file) => !fs.existsSync(path.join(gatewayDir, file)))).toEqual([]);
  });
});
