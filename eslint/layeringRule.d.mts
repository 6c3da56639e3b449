// Types for eslint/layeringRule.mjs.
export function layerOf(file: string): string | null;
export const gatewayLayering: unknown;
