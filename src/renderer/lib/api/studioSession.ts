/** The studio session (/api/admin/session): whether there is one, and when it began. */
import { studioSessionInfoSchema } from '../../../shared/admin';
import { GatewayError } from './errors';
import type { Requester } from './request';

export function studioSessionApi(request: Requester) {
  return {
    /** The studio session: live, and when it began (the session budget counts from there). */
    sessionInfo: (signal?: AbortSignal) =>
      request.json(studioSessionInfoSchema, '/api/admin/session', { signal }),
    /** 'login' when there is no studio session (401): the user must open a login link. */
    async probe(): Promise<'ok' | 'login'> {
      try {
        await request.send('/api/admin/session', { probe: true });
        return 'ok';
      } catch (error) {
        if (error instanceof GatewayError && error.status === 401) return 'login';
        throw error;
      }
    },
  };
}
