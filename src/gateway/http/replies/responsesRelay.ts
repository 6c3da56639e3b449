import type { Response } from 'express';
import type { ResponsesRunReply } from '../../imageService/types';
import { openSse, type SseWriter } from './sse';

/**
 * The bytes of a relayed Responses call (imageService/responses.ts runs it): an event stream
 * forwarded event by event, or the upstream's whole JSON body with its status.
 */
export function responsesRelayReply(res: Response): ResponsesRunReply {
  let sse: SseWriter | null = null;
  return {
    get committed() {
      return res.headersSent;
    },
    openEvents() {
      sse = openSse(res);
    },
    event(pieces) {
      sse?.raw(pieces);
    },
    whole(status, body) {
      res.status(status).type('application/json').end(body);
    },
    end() {
      if (sse) sse.end();
      else res.end();
    },
  };
}
