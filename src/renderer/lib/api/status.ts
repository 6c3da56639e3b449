/** The gateway's status (/api/status): its version, upstream and address, for the shell. */
import { statusResponseSchema, type StatusResponse } from '../../../shared/status';
import type { Requester } from './request';

export type GatewayStatus = StatusResponse;

export function statusApi(request: Requester) {
  return {
    status: (): Promise<GatewayStatus> => request.json(statusResponseSchema, '/api/status'),
  };
}
