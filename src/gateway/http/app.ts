import express, { type Express } from 'express';
import fs from 'node:fs';
import path from 'node:path';
import { ERROR_CODES, ERROR_TYPES } from '../../shared/errors';
import type { StatusResponse } from '../../shared/status';
import type { Dispatch } from '../dispatch/dispatchCall';
import { ApiError } from '../core/errors';
import { URL_IMAGES_PATH, type UrlImages } from '../gallery/urlImages';
import { openApiDocument } from '../openapi/document';
import type { Inflight } from '../usage/inflight';
import type { UsageWriter } from '../usage/writer';
import { usageRecorder } from './usageRecorder';
import { requireApiKey, type KeyAuthenticator } from './auth';
import { errorHandler } from './errorHandler';
import { serveUrlImage } from './urlImages';
import { freshSnapshots, type Snapshot } from './freshSnapshots';
import { hostGuard } from './hostGuard';
import { originGuard } from './originGuard';
import { requestId } from './requestScope';
import { securityHeaders } from './securityHeaders';
import { DEFAULT_CLIENT_TIMEOUTS, slowClientGuard, type ClientTimeouts } from './slowClients';
import { imagesRouter } from './routes/images';
import { modelsRouter } from './routes/models';
import { responsesRouter } from './routes/responses';
import type { GalleryPort, LiveImageSettings } from '../imageService/types';
import { keyConcurrency } from './keyConcurrency';
import { keyLimitsGuard } from './keyLimits';
import type { KeyLimiter } from '../limits/limiter';
import { adminRouter, type AdminDeps } from './admin';
import { parentImage } from './galleryPort';
import type { StudioSessionGate } from './studioSession';
import type { StudioRuns } from './studioRuns';
import { VERSION } from '../core/version';
import type { StorageHealth } from '../storage/health';
import { refuseWhileDraining, type Drain } from './drain';
import { healthRoute } from './health';
import type { Router } from 'express';
import type { ResponseJobs } from '../responseJobs/jobs';

export interface AppDeps {
  dispatch: Dispatch;
  imageSettings: LiveImageSettings;
  injectImageTool: () => boolean;
  keys: KeyAuthenticator;
  /** Each key's budget, rates and expiry, checked before any upstream call. */
  limits: KeyLimiter;
  inflight: Inflight;
  /** Opens each request's usage notes and writes its record (usage/writer.ts). */
  usage: UsageWriter;
  textModels: () => readonly string[];
  /** The Host values allowed; refilled by the server address once the port is bound. */
  allowedHosts: ReadonlySet<string>;
  /** The studio's own origins; refilled by the server address once the port is bound. */
  ownOrigins: ReadonlySet<string>;
  allowedOrigins: () => readonly string[];
  /** The tables the request path reads from memory (settings, prices), brought up to date first. */
  snapshots: readonly Snapshot[];
  /** What `/api/status` says of the upstream (the account pool) and where the gateway listens. */
  describeUpstream: () => StatusResponse['upstream'];
  url: () => string;
  staticDir?: string;
  now: () => number;
  log: (line: string) => void;
  /** The studio's session: its login link, the admin API's guard, and /v1 as the Studio key. */
  studioSession: StudioSessionGate;
  admin: Omit<AdminDeps, 'gate'>;
  /** The gallery: the one port the request path keeps images through (imageService/types.ts). */
  gallery: GalleryPort;
  /** The studio's runs, so its Cancel stops their upstream work (studioRuns.ts). */
  studioRuns?: Pick<StudioRuns, 'cancellable'>;
  /** Bounds on slow senders (slowClients.ts); defaults apply when omitted. */
  clientTimeouts?: ClientTimeouts;
  /** Images answered as `response_format: "url"`, served at signed URLs (gallery/urlImages.ts). */
  urlImages?: UrlImages;
  /** Set on the first stop signal: /healthz says so and /v1 takes no new work (drain.ts). */
  drain: Drain;
  /** The database's answer to GET /healthz (storage/health.ts). */
  storageHealth: () => StorageHealth;
  /** `/mcp`, the MCP server for agent hosts (mcpRoute.ts): behind the same guards as /v1. */
  mcp?: Router;
  /** Background responses on /v1/responses, and the studio's runs (responseJobs/). */
  responseJobs?: ResponseJobs;
}

/** Middleware order is the security model: id, Host, Origin, then per-area auth. */
export function createApp(deps: AppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(requestId);
  app.use(freshSnapshots(deps.snapshots));
  app.use(securityHeaders);
  const clientTimeouts = deps.clientTimeouts ?? DEFAULT_CLIENT_TIMEOUTS;
  app.use(slowClientGuard(clientTimeouts));
  app.use(hostGuard(deps.allowedHosts));
  app.use(originGuard(deps.ownOrigins, deps.allowedOrigins));

  // Outside /v1's key check: the signed URL is the credential (a client fetches it like any
  // image URL, without the key), and the OpenAPI document is public description.
  if (deps.urlImages) app.get(`${URL_IMAGES_PATH}/:name`, serveUrlImage(deps.urlImages));
  app.get('/v1/openapi.json', (_req, res) => {
    res.json(openApiDocument());
  });
  // For a load balancer: no key, but behind the Host guard like everything else.
  app.get('/healthz', healthRoute({ storage: deps.storageHealth, drain: deps.drain }));

  const v1 = express.Router();
  v1.use(refuseWhileDraining(deps.drain));
  v1.use(usageRecorder({ inflight: deps.inflight, usage: deps.usage, now: deps.now }));
  v1.use(requireApiKey(deps.keys, deps.now, deps.studioSession.hasStudioSession));
  v1.use(keyLimitsGuard(deps.limits, deps.now));
  if (deps.studioRuns) v1.use(deps.studioRuns.cancellable);
  v1.use(keyConcurrency());
  v1.use(parentImage((id) => deps.gallery.exists(id)));
  v1.use(
    imagesRouter({
      dispatch: deps.dispatch,
      settings: deps.imageSettings,
      limits: deps.limits,
      now: deps.now,
      gallery: deps.gallery,
      urlImages: deps.urlImages,
      jobs: deps.responseJobs,
    }),
  );
  v1.use(
    responsesRouter({
      dispatch: deps.dispatch,
      textModels: deps.textModels,
      injectImageTool: deps.injectImageTool,
      settings: deps.imageSettings,
      limits: deps.limits,
      now: deps.now,
      gallery: deps.gallery,
      jobs: deps.responseJobs,
    }),
  );
  v1.use(modelsRouter(deps.textModels));
  v1.use((req) => {
    throw new ApiError(404, `Unknown endpoint ${req.method} /v1${req.path}.`, {
      type: ERROR_TYPES.notFound,
      code: ERROR_CODES.notFound,
    });
  });
  app.use('/v1', v1);
  if (deps.mcp) app.use('/mcp', deps.mcp);

  app.get('/api/status', (_req, res) => {
    const status: StatusResponse = {
      name: 'Atelier',
      version: VERSION,
      upstream: deps.describeUpstream(),
      address: deps.url(),
    };
    res.json(status);
  });
  app.use('/api/admin', adminRouter({ ...deps.admin, gate: deps.studioSession }));
  app.get('/login', (req, res) => deps.studioSession.login(req, res));

  if (deps.staticDir && fs.existsSync(path.join(deps.staticDir, 'index.html'))) {
    const index = path.join(deps.staticDir, 'index.html');
    app.use(express.static(deps.staticDir, { index: 'index.html', maxAge: 0 }));
    // The studio routes (/keys, /gallery, ...) are client-side: serve the app shell for them.
    app.get(/^\/(?!v1\/|api\/).*/, (_req, res) => {
      res.sendFile(index);
    });
  }

  app.use((req) => {
    throw new ApiError(404, `Unknown path ${req.method} ${req.path}.`, {
      type: ERROR_TYPES.notFound,
      code: ERROR_CODES.notFound,
    });
  });
  app.use(errorHandler(deps.log));
  return app;
}
