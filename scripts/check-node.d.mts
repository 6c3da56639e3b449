// Types for scripts/check-node.mjs.
export const MINIMUM: { major: number; minor: number };
export const RECOMMENDED: string;
export function nodeVersionProblem(version: string): string | null;
