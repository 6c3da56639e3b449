// Types for scripts/native-modules.mjs (a plain-Node script, also used by the tests).
export type NativeModuleKind =
  { kind: 'napi' } | { kind: 'v8-abi'; symbol: string } | { kind: 'unknown' };
export interface CheckedModule {
  package: string;
  file: string;
  result: NativeModuleKind;
}
export function elfDynamicSymbols(buf: Buffer): { name: string; defined: boolean }[] | undefined;
export function classifyNativeModule(buf: Buffer): NativeModuleKind;
export function productionPackages(root: string): { name: string; dir: string }[];
export function nativeFilesIn(dir: string): string[];
export function checkNativeModules(root: string): CheckedModule[];
export function describeProblems(checked: CheckedModule[]): string[];
