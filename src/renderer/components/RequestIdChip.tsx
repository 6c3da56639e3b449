import { CopyButton } from './CopyButton';

/** What a request id is for, in the words of someone who has never needed one. */
export const REQUEST_ID_HINT =
  'Request id: the gateway’s name for this run. The Usage page and the server log find it by ' +
  'this id; quote it when you ask about a result or a bill.';

/** A run's request id, small and copyable, with a tooltip saying what it is for. */
export function RequestIdChip({ requestId }: { requestId: string }) {
  return (
    <span className="request-id-chip" data-testid="run-request-id" title={REQUEST_ID_HINT}>
      <span className="muted">Request</span>{' '}
      <code className="mono" data-testid="run-request-id-value">
        {requestId}
      </code>{' '}
      <CopyButton text={requestId} label="Copy the request id" />
    </span>
  );
}
