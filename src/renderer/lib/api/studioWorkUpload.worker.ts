/**
 * Sends Edit's work files to the gateway off the page's main thread: a fetch with a body of
 * megabytes (a 4K mask is 8 MB) cost the main thread 75-300 ms per send, frames a person painting
 * or selecting would see drop. The bytes arrive transferred (no copy); the answer goes back.
 */
import type { UploadRequest, UploadResult } from './studioWorkUpload';

interface WorkerScope {
  onmessage: ((event: MessageEvent<UploadRequest>) => void) | null;
  postMessage(message: UploadResult): void;
}

const scope = self as unknown as WorkerScope;

scope.onmessage = (event) => {
  const { id, url, headers, body } = event.data;
  fetch(url, { method: 'PUT', headers, body, credentials: 'same-origin' })
    .then(async (res) => {
      scope.postMessage({ id, status: res.status, text: res.ok ? '' : await res.text() });
    })
    .catch((error: unknown) => {
      scope.postMessage({ id, status: 0, text: error instanceof Error ? error.message : 'failed' });
    });
};
