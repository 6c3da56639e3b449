/**
 * The admin API client of the Gallery, Usage, Keys, Accounts, Server and Settings pages
 * (docs/admin-api.md): one module per resource, each over the one request function
 * (request.ts), every answer checked against its schema in src/shared/admin.ts.
 */
import { accountsApi } from './accounts';
import { boardsApi } from './boards';
import { galleryApi } from './gallery';
import { keysApi } from './keys';
import { pricesApi } from './prices';
import { createRequest, type FetchLike } from './request';
import { doubtSession } from './session';
import { settingsApi } from './settings';
import { studioRunsApi } from './studioRuns';
import { studioSessionApi } from './studioSession';
import { usageApi } from './usage';

export function createAdminClient(
  fetchImpl: FetchLike = (input, init) => fetch(input, init),
  onUnauthorized: () => void = doubtSession,
) {
  const request = createRequest(fetchImpl, onUnauthorized);
  const gallery = galleryApi(request);
  const prices = pricesApi(request);
  return {
    session: studioSessionApi(request).sessionInfo,
    ...keysApi(request),
    ...accountsApi(request),
    ...usageApi(request),
    ...settingsApi(request),
    prices: prices.prices,
    setPrice: prices.setPrice,
    image: gallery.image,
    setFavourite: gallery.setFavourite,
    markImage: gallery.markImage,
    deleteImage: gallery.deleteImage,
    ...boardsApi(request),
    ...studioRunsApi(request),
  };
}

/** The admin API client of the gateway pages. */
export const admin = createAdminClient();
