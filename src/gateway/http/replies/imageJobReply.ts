import type { ImagePlan, ImageRunReply } from '../../imageService/types';
import { imageEvents } from './imageEvents';
import type { SseWriter } from './sse';

/**
 * A studio run's reply, written into its job (`jobSse`): always as an event stream, whatever the
 * request asked, so every image is kept as an event a returning page can read. Nothing streams
 * through: each image's `*.completed` event is whole when it is kept.
 */
export function imageJobReply(sse: SseWriter, plan: ImagePlan, now: () => number): ImageRunReply {
  const events = imageEvents(sse, plan, now);
  return {
    onPartial: (i, partial) => events.partial(i, partial),
    onImage: (i, image) => events.completed(i, image),
    // The job holds its events from the start: a failure is its `error` event.
    committed: true,
    async succeeded(run, keep) {
      await keep(run.images);
      sse.end();
    },
    failed(error) {
      sse.error(error);
      sse.end();
      return Promise.resolve();
    },
    broken() {
      // The error goes on to the route, which fails the job with its message.
    },
  };
}
