import type { RequestHandler } from 'express';
import { CONTENT_SECURITY_POLICY } from '../../shared/contentSecurityPolicy';

/**
 * Headers on every response, the studio's pages and the API alike: the studio's CSP (framing,
 * base and form targets locked down), no MIME sniffing (an uploaded image or a JSON error is
 * never run as script or HTML), no framing for browsers that predate frame-ancestors, and no
 * Referer leaking the studio's one-time login paths to other sites.
 */
export const securityHeaders: RequestHandler = (_req, res, next) => {
  res.setHeader('Content-Security-Policy', CONTENT_SECURITY_POLICY);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('Referrer-Policy', 'no-referrer');
  next();
};
