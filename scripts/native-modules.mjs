// Every native module the app can load at run time must be N-API: an N-API binary registers
// `napi_register_module_v1` and loads in Node and in Electron alike, while one built against
// Node's V8 API registers `node_register_module_v<ABI>` and fails in Electron ("compiled against a
// different Node.js version") the day the desktop app starts. This walks the production
// dependency tree (what the packaged app ships, not build tools), finds every `.node` file and
// reads what it registers.
//
//   node scripts/native-modules.mjs [ROOT]   exits 1 naming each module that is not N-API
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const NAPI_EXPORT = 'napi_register_module_v1';
// Old N-API modules register from a static constructor through this import instead.
const NAPI_LEGACY_IMPORT = 'napi_module_register';
const V8_ABI_EXPORT = /^_?node_register_module_v(\d+)$/;

/**
 * The dynamic symbols of an ELF shared object: names with whether each is defined here (an
 * export) or only referenced (an import). Undefined when the file is not ELF or has no .dynsym.
 * @param {Buffer} buf
 * @returns {{ name: string, defined: boolean }[] | undefined}
 */
export function elfDynamicSymbols(buf) {
  if (buf.length < 64 || buf.readUInt32BE(0) !== 0x7f454c46) return undefined;
  const is64 = buf[4] === 2;
  const le = buf[5] === 1;
  const u16 = (at) => (le ? buf.readUInt16LE(at) : buf.readUInt16BE(at));
  const u32 = (at) => (le ? buf.readUInt32LE(at) : buf.readUInt32BE(at));
  const word = (at) =>
    is64 ? Number(le ? buf.readBigUInt64LE(at) : buf.readBigUInt64BE(at)) : u32(at);
  const shoff = word(is64 ? 0x28 : 0x20);
  const shentsize = u16(is64 ? 0x3a : 0x2e);
  const shnum = u16(is64 ? 0x3c : 0x30);
  if (shoff === 0 || shnum === 0 || shoff + shnum * shentsize > buf.length) return undefined;
  const section = (i) => {
    const at = shoff + i * shentsize;
    return {
      type: u32(at + 4),
      offset: word(at + (is64 ? 0x18 : 0x10)),
      size: word(at + (is64 ? 0x20 : 0x14)),
      link: u32(at + (is64 ? 0x28 : 0x18)),
      entsize: word(at + (is64 ? 0x38 : 0x24)),
    };
  };
  const SHT_DYNSYM = 11;
  for (let i = 0; i < shnum; i += 1) {
    const dynsym = section(i);
    if (dynsym.type !== SHT_DYNSYM || dynsym.entsize === 0) continue;
    const strtab = section(dynsym.link);
    const symbols = [];
    for (
      let at = dynsym.offset;
      at + dynsym.entsize <= dynsym.offset + dynsym.size;
      at += dynsym.entsize
    ) {
      const nameAt = strtab.offset + u32(at);
      const shndx = u16(at + (is64 ? 6 : 14));
      const end = buf.indexOf(0, nameAt);
      if (end < 0 || nameAt >= strtab.offset + strtab.size) continue;
      const name = buf.toString('latin1', nameAt, end);
      if (name !== '') symbols.push({ name, defined: shndx !== 0 });
    }
    return symbols;
  }
  return undefined;
}

/**
 * What a native module registers. ELF files (Linux) are read symbol by symbol; Mach-O and PE
 * (macOS and Windows prebuilds shipped in the same packages) by their export names, which both
 * keep as NUL-terminated strings.
 * @param {Buffer} buf
 * @returns {{ kind: 'napi' } | { kind: 'v8-abi', symbol: string } | { kind: 'unknown' }}
 */
export function classifyNativeModule(buf) {
  const symbols = elfDynamicSymbols(buf);
  if (symbols) {
    const exported = symbols.filter((s) => s.defined).map((s) => s.name);
    if (exported.includes(NAPI_EXPORT)) return { kind: 'napi' };
    if (symbols.some((s) => !s.defined && s.name === NAPI_LEGACY_IMPORT)) return { kind: 'napi' };
    const v8 = exported.find((name) => V8_ABI_EXPORT.test(name));
    return v8 ? { kind: 'v8-abi', symbol: v8 } : { kind: 'unknown' };
  }
  const has = (name) => buf.includes(Buffer.from(`${name}\0`, 'latin1'));
  if (has(NAPI_EXPORT) || has(NAPI_LEGACY_IMPORT)) return { kind: 'napi' };
  const v8 = /node_register_module_v(\d+)\0/.exec(buf.toString('latin1'));
  return v8 ? { kind: 'v8-abi', symbol: `node_register_module_v${v8[1]}` } : { kind: 'unknown' };
}

function readJson(file) {
  return JSON.parse(readFileSync(file, 'utf8'));
}

/** Where `name` resolves from `fromDir`, the way Node looks it up (nearest node_modules up). */
function findPackageDir(name, fromDir, root) {
  for (let dir = fromDir; ; dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', name);
    try {
      if (statSync(join(candidate, 'package.json')).isFile()) return candidate;
    } catch {
      // not here: one level up
    }
    if (dir === root || dir === dirname(dir)) return undefined;
  }
}

/**
 * The package folders the app needs at run time: `dependencies` and the optional ones that are
 * installed (platform builds such as @img/sharp-linux-x64), transitively; never devDependencies.
 * @param {string} root
 * @returns {{ name: string, dir: string }[]}
 */
export function productionPackages(root) {
  const seen = new Map();
  const visit = (dir) => {
    const pkg = readJson(join(dir, 'package.json'));
    const wanted = { ...pkg.dependencies, ...pkg.optionalDependencies };
    for (const name of Object.keys(wanted)) {
      const found = findPackageDir(name, dir, root);
      if (!found || seen.has(found)) continue;
      seen.set(found, name);
      visit(found);
    }
  };
  visit(root);
  return [...seen].map(([dir, name]) => ({ name, dir }));
}

/** Every `.node` file in a package, not descending into its own node_modules (walked apart). */
export function nativeFilesIn(dir) {
  const found = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules') continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...nativeFilesIn(path));
    else if (entry.isFile() && entry.name.endsWith('.node')) found.push(path);
  }
  return found;
}

/**
 * @param {string} root the project folder
 * @returns {{ package: string, file: string, result: ReturnType<typeof classifyNativeModule> }[]}
 */
export function checkNativeModules(root) {
  return productionPackages(root).flatMap(({ name, dir }) =>
    nativeFilesIn(dir).map((file) => ({
      package: name,
      file: relative(root, file),
      result: classifyNativeModule(readFileSync(file)),
    })),
  );
}

/** One line per module that would not load in Electron; empty when all are N-API. */
export function describeProblems(checked) {
  return checked
    .filter((c) => c.result.kind !== 'napi')
    .map((c) =>
      c.result.kind === 'v8-abi'
        ? `${c.package}: ${c.file} is built against Node's V8 ABI (${c.result.symbol}), not N-API: it will not load in Electron`
        : `${c.package}: ${c.file} registers neither napi_register_module_v1 nor node_register_module_v*: not a loadable N-API module`,
    );
}

function main() {
  const root = resolve(process.argv[2] ?? join(dirname(fileURLToPath(import.meta.url)), '..'));
  const checked = checkNativeModules(root);
  const problems = describeProblems(checked);
  for (const line of problems) console.error(`native-modules: ${line}`);
  if (problems.length > 0) process.exit(1);
  const packages = [...new Set(checked.map((c) => c.package))].join(', ');
  console.log(`native-modules: ${checked.length} .node files, all N-API (${packages})`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) main();
