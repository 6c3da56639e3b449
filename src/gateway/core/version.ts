declare const __ATELIER_VERSION__: string | undefined;

/** Injected by the bundlers; source runs (tests) report a dev version. */
export const VERSION: string =
  typeof __ATELIER_VERSION__ === 'string' ? __ATELIER_VERSION__ : '0.0.0-dev';
