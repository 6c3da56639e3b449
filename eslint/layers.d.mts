// Types for eslint/layers.mjs.
export const ROOT: '(root)';
export const GATEWAY_LAYERS: Record<string, { may: string[]; express?: boolean }>;
export const EVERYONE_MAY: string[];
export function mayImport(from: string, to: string): boolean;
export function expressFolders(): string[];
export function mayImportCell(folder: string): string;
