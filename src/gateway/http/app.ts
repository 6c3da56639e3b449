import express, { type Express } from 'express';
import fs from 'node:fs';
import path from 'node:path';
import { ERROR_CODES, ERROR_TYPES } from '../../shared/errors';
import type { StatusResponse } from '../../shared/status';
import { ApiError } from '../core/errors';
import { URL_IMAGES_PATH } from '../gallery/urlImages';
import { openApiDocument } from '../openapi/document';
import type { Inflight } from '../usage/inflight';
import type { UsageWriter } from '../usage/writer';
import { usageRecorder } from './usageRecorder';
import type { KeyAuthenticator } from '../keys/authenticator';
import { requireApiKey } from './auth';
import { errorHandler } from './errorHandler';
import { serveUrlImage } from './urlImages';
import { freshSnapshots, type Snapshot } from './freshSnapshots';
import { hostGuard } from './hostGuard';
import { originGuard } from './originGuard';
import { requestId } from './requestScope';
import { securityHeaders } from './securityHeaders';
import { DEFAULT_CLIENT_TIMEOUTS, slowClientGuard, type ClientTimeouts } from './slowClients';
import { imagesRouter, type ImagesRouteDeps } from './routes/images';
import { modelsRouter } from './routes/models';
import { responsesRouter, type ResponsesDeps } from './routes/responses';
import type { GalleryPort } from '../gallery/port';
import { keyConcurrency } from './keyConcurrency';
import { keyLimitsGuard } from './keyLimits';
import type { KeyLimiter } from '../limits/limiter';
import { adminRouter, type AdminDeps } from './admin';
import { parentImage } from './parentImage';
import type { StudioSessionGate } from './studioSession';
import type { StudioRuns } from './studioRuns';
import { VERSION } from '../core/version';
import type { StorageHealth } from '../storage/health';
import { refuseWhileDraining, type Drain } from './drain';
import { healthRoute } from './health';
import type { Router } from 'express';

/** What every request passes before its area's own checks. */
export interface AppGuards {
  /** The Host values allowed; refilled by the server address once the port is bound. */
  allowedHosts: ReadonlySet<string>;
  /** The studio's own origins; refilled by the server address once the port is bound. */
  ownOrigins: ReadonlySet<string>;
  allowedOrigins: () => readonly string[];
  /** The tables the request path reads from memory (settings, prices), brought up to date first. */
  snapshots: readonly Snapshot[];
  /** Bounds on slow senders (slowClients.ts); defaults apply when omitted. */
  clientTimeouts?: ClientTimeouts;
}

/** /v1's admission, in the order a request meets it: drain, usage record, key, limits. */
export interface V1Admission {
  /** Set on the first stop signal: /healthz says so and /v1 takes no new work (drain.ts). */
  drain: Drain;
  inflight: Inflight;
  /** Opens each request's usage notes and writes its record (usage/writer.ts). */
  usage: UsageWriter;
  keys: KeyAuthenticator;
  /** Each key's budget, rates and expiry, checked before any upstream call. */
  limits: KeyLimiter;
  now: () => number;
}

/** The studio's area: its session, its runs and the admin API behind the session. */
export interface StudioArea {
  /** The studio's session: its login link, the admin API's guard, and /v1 as the Studio key. */
  session: StudioSessionGate;
  /** The studio's runs, so its Cancel stops their upstream work (studioRuns.ts). */
  runs?: Pick<StudioRuns, 'cancellable'>;
  admin: Omit<AdminDeps, 'gate'>;
}

/** What a load balancer and the studio's status line read. */
export interface HealthArea {
  /** The database's answer to GET /healthz (storage/health.ts). */
  storage: () => Promise<StorageHealth>;
  /** What `/api/status` says of the upstream (the account pool). */
  describeUpstream: () => StatusResponse['upstream'];
  /** Where the gateway listens. */
  url: () => string;
}

/** createApp's dependencies, grouped by the part of the app that uses them. */
export interface AppDeps {
  guards: AppGuards;
  v1: V1Admission;
  /** /v1/images/*: the image service and its replies (the gallery is its port for keeping). */
  images: ImagesRouteDeps & { gallery: GalleryPort };
  /** /v1/responses and /v1/models. */
  responses: ResponsesDeps;
  studio: StudioArea;
  health: HealthArea;
  /** `/mcp`, the MCP server for agent hosts (mcpRoute.ts): behind the same guards as /v1. */
  mcp?: Router;
  staticDir?: string;
  log: (line: string) => void;
}

/** Middleware order is the security model: id, Host, Origin, then per-area auth. */
export function createApp(deps: AppDeps): Express {
  const { guards, v1: v1Admission, images, studio } = deps;
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(requestId);
  app.use(freshSnapshots(guards.snapshots));
  app.use(securityHeaders);
  const clientTimeouts = guards.clientTimeouts ?? DEFAULT_CLIENT_TIMEOUTS;
  app.use(slowClientGuard(clientTimeouts));
  app.use(hostGuard(guards.allowedHosts));
  app.use(originGuard(guards.ownOrigins, guards.allowedOrigins));

  // Outside /v1's key check: the signed URL is the credential (a client fetches it like any
  // image URL, without the key), and the OpenAPI document is public description.
  if (images.urlImages) app.get(`${URL_IMAGES_PATH}/:name`, serveUrlImage(images.urlImages));
  app.get('/v1/openapi.json', (_req, res) => {
    res.json(openApiDocument());
  });
  // For a load balancer: no key, but behind the Host guard like everything else.
  app.get('/healthz', healthRoute({ storage: deps.health.storage, drain: v1Admission.drain }));

  const v1 = express.Router();
  const { drain, inflight, usage, keys, limits, now } = v1Admission;
  v1.use(refuseWhileDraining(drain));
  v1.use(usageRecorder({ inflight, usage, now }));
  v1.use(requireApiKey(keys, now, studio.session.hasStudioSession));
  v1.use(keyLimitsGuard(limits, now));
  if (studio.runs) v1.use(studio.runs.cancellable);
  v1.use(keyConcurrency());
  v1.use(parentImage((id) => images.gallery.exists(id)));
  v1.use(imagesRouter(images));
  v1.use(responsesRouter(deps.responses));
  v1.use(modelsRouter(deps.responses.textModels));
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
      upstream: deps.health.describeUpstream(),
      address: deps.health.url(),
    };
    res.json(status);
  });
  app.use('/api/admin', adminRouter({ ...studio.admin, gate: studio.session }));
  app.get('/login', (req, res) => studio.session.login(req, res));

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
