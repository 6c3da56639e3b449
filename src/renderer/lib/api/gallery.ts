/**
 * The gallery's images (/api/admin/images): the list and search, an image's record, files and
 * marks, and the record of an image the studio just made.
 */
import {
  imageDetailSchema,
  imageResponseSchema,
  imagesPageSchema,
  okSchema,
  type ImageRecord,
  type ImagesPage,
} from '../../../shared/admin';
import { subscribeAdminEvents, type SubscribeAdminEvents } from './adminEvents';
import { queryString, type Requester } from './request';
import { adminUrls, imagePath } from './urls';

/** What the studio asks GET /api/admin/images for (a gallery search: docs/admin-api.md). */
export interface ImageQuery {
  q?: string;
  favourite?: boolean;
  source?: 'studio' | 'api';
  /** Only the images on this board (its id). */
  board?: string;
  model?: string;
  /** WxH of the file or the requested size, or `auto`. */
  size?: string;
  /** API key id. */
  key?: string;
  /** ms since the epoch; until is exclusive. */
  since?: number;
  until?: number;
  limit?: number;
  before?: number;
  /** How many of the page's first thumbnails to bring inline (a first screen). */
  thumbs?: number;
}

export function galleryApi(
  request: Requester,
  subscribe: SubscribeAdminEvents = subscribeAdminEvents,
) {
  async function getBlob(path: string, signal?: AbortSignal): Promise<Blob> {
    const response = await request.send(path, { headers: { accept: 'image/*' }, signal });
    return response.blob();
  }

  function listImages(query: ImageQuery = {}, signal?: AbortSignal): Promise<ImagesPage> {
    const qs = queryString({
      q: query.q,
      favourite: query.favourite ? '1' : undefined,
      source: query.source,
      board: query.board,
      model: query.model,
      size: query.size,
      key: query.key,
      since: query.since,
      until: query.until,
      limit: query.limit || undefined,
      before: query.before,
      thumbs: query.thumbs,
    });
    return request.json(imagesPageSchema, `/api/admin/images${qs}`, { signal });
  }

  return {
    listImages,
    image: (id: string, signal?: AbortSignal) =>
      request.json(imageDetailSchema, imagePath(id), { signal }),
    setFavourite: async (id: string, favourite: boolean) =>
      (
        await request.json(imageResponseSchema, imagePath(id), {
          method: 'PATCH',
          body: { favourite },
        })
      ).image,
    /** Star (favourite) or reject (hide from the gallery) an image; either may be taken back. */
    markImage: async (id: string, marks: { favourite?: boolean; rejected?: boolean }) =>
      (await request.json(imageResponseSchema, imagePath(id), { method: 'PATCH', body: marks }))
        .image,
    deleteImage: (id: string) => request.json(okSchema, imagePath(id), { method: 'DELETE' }),

    imageFile: (id: string, signal?: AbortSignal) => getBlob(adminUrls.file(id), signal),
    imageThumb: (id: string, signal?: AbortSignal) => getBlob(adminUrls.thumb(id), signal),
    /** The mask file of an image made by a masked edit (for an export with its mask). */
    imageMask: (id: string, signal?: AbortSignal) => getBlob(adminUrls.mask(id), signal),

    /**
     * The gallery record of image `index` of request `requestId`. The gateway stores images after
     * the reply is sent, so it may not be there yet: it is looked up once the events stream is
     * live (it may have come before), awaited as an `image` event, and looked up a last time
     * after `timeoutMs` (a stream that dropped may have missed it). Null if it never came: the
     * chain is a nicety, an edit works without it.
     */
    findImage(requestId: string, index: number, timeoutMs = 30_000): Promise<ImageRecord | null> {
      const matches = (image: ImageRecord) =>
        image.requestId === requestId && image.index === index;
      const lookUp = () =>
        listImages({ source: 'studio', limit: 50 }).then(
          (page) => page.images.find(matches) ?? null,
          () => null, // Gallery unavailable: the next look (or the event) may find it.
        );
      return new Promise((resolve) => {
        let settled = false;
        const finish = (record: ImageRecord | null) => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          stop();
          resolve(record);
        };
        const timer = setTimeout(() => void lookUp().then(finish), timeoutMs);
        const stop = subscribe({
          onImage: (image) => {
            if (matches(image)) finish(image);
          },
          onConnection: (live) => {
            if (live) void lookUp().then((found) => found && finish(found));
          },
        });
      });
    },
  };
}
