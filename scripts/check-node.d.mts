// Types for scripts/check-node.mjs.
export const MINIMUM: { major: number; minor: number };
export const RECOMMENDED: string;
export const PROJECT_ROOT: string;
export function nodeVersionProblem(version: string): string | null;
export function projectNode(root?: string, exists?: (file: string) => boolean): string | null;
export function machineNodeVersion(
  root?: string,
  env?: Record<string, string | undefined>,
): string | null;
export function describeNode(where?: {
  version?: string;
  execPath?: string;
  root?: string;
  machineVersion?: () => string | null;
}): string;
export function announceNode(label: string, print?: (line: string) => void): void;
export function runOnNewEnoughNode(label: string, script: string, args: string[]): boolean;
