import { z } from 'zod';

/** GET /api/status: what the studio shows in its shell (docs/admin-api.md). */
export const statusResponseSchema = z.object({
  name: z.string(),
  version: z.string(),
  upstream: z.object({ kind: z.enum(['simulator', 'accounts']), label: z.string() }),
  /** The gateway's base URL, e.g. http://127.0.0.1:8787 */
  address: z.string(),
});
export type StatusResponse = z.infer<typeof statusResponseSchema>;
