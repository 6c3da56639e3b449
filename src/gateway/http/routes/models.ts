import { Router } from 'express';
import { ERROR_CODES, ERROR_TYPES } from '../../../shared/errors';
import { IMAGE_MODELS } from '../../../shared/models';
import { ApiError } from '../../core/errors';

/** A fixed creation time keeps the list stable between restarts. */
const CREATED = Math.floor(Date.UTC(2026, 3, 21) / 1000);

/**
 * Lists the text/agent models AND both image model ids. The spec allows leaving the image model
 * out; listing it lets tools that populate a model picker from /v1/models find it.
 */
export function modelsRouter(textModels: () => readonly string[]): Router {
  const router = Router();
  const entry = (id: string) => ({ id, object: 'model', created: CREATED, owned_by: 'atelier' });
  const all = () => [...textModels(), ...IMAGE_MODELS];
  router.get('/models', (_req, res) => {
    res.json({ object: 'list', data: all().map(entry) });
  });
  router.get('/models/:id', (req, res) => {
    if (!all().includes(req.params.id)) {
      throw new ApiError(404, `The model '${req.params.id}' does not exist.`, {
        type: ERROR_TYPES.invalidRequest,
        code: ERROR_CODES.unknownModel,
        param: 'model',
      });
    }
    res.json(entry(req.params.id));
  });
  return router;
}
