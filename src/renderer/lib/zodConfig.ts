import { z } from 'zod';

/**
 * Zod compiles object parsers with `new Function` unless told not to, and probes for it even
 * then; the studio's Content-Security-Policy forbids eval, so the probe would log a CSP
 * violation on every load. Must run before any schema is built: import it first.
 */
z.config({ jitless: true });
