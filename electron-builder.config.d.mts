// Types for electron-builder.config.mjs (read by test/packaging/installer.test.ts).
import type { Configuration } from 'electron-builder';

declare const config: Configuration;
export default config;
