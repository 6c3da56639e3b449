import { Router } from 'express';
import {
  addBoardImagesBodySchema,
  boardBodySchema,
  type AddBoardImagesResponse,
  type BoardResponse,
  type BoardsResponse,
} from '../../../shared/admin';
import { invalidParam } from '../../core/errors';
import type { BoardsRepository } from '../../gallery/boardsRepository';
import type { ImagesRepository } from '../../gallery/repository';
import { notFound, parse } from './parse';

export interface BoardsAdminDeps {
  boards: BoardsRepository;
  images: Pick<ImagesRepository, 'exists'>;
  now: () => number;
}

/**
 * /api/admin/boards: the person's collections of gallery images (issue 22). The gallery lists a
 * board's images with `GET /api/admin/images?board=<id>`.
 */
export function boardsAdmin(deps: BoardsAdminDeps): Router {
  const router = Router();
  const existing = (id: string) => {
    const board = deps.boards.get(id);
    if (!board) throw notFound('board');
    return board;
  };
  const freeName = (name: string, self?: string) => {
    const taken = deps.boards.byName(name);
    if (taken && taken.id !== self) throw invalidParam('name', `A board named '${name}' exists.`);
  };

  router.get('/boards', (_req, res) => {
    res.json({ boards: deps.boards.list() } satisfies BoardsResponse);
  });

  router.post('/boards', (req, res) => {
    const { name } = parse(boardBodySchema, req.body);
    freeName(name);
    res.json({ board: deps.boards.create(name, deps.now()) } satisfies BoardResponse);
  });

  router.patch('/boards/:id', (req, res) => {
    const { name } = parse(boardBodySchema, req.body);
    const { id } = existing(req.params.id);
    freeName(name, id);
    res.json({ board: deps.boards.rename(id, name)! } satisfies BoardResponse);
  });

  router.delete('/boards/:id', (req, res) => {
    if (!deps.boards.remove(req.params.id)) throw notFound('board');
    res.json({ ok: true });
  });

  router.post('/boards/:id/images', (req, res) => {
    const { imageIds } = parse(addBoardImagesBodySchema, req.body);
    const { id } = existing(req.params.id);
    // Every id is checked before any is added: a bad one adds none.
    const missing = imageIds.findIndex((imageId) => !deps.images.exists(imageId));
    if (missing !== -1)
      throw invalidParam(`imageIds.${missing}`, `No image '${imageIds[missing]}' in the gallery.`);
    const added = deps.boards.add(id, imageIds, deps.now());
    res.json({ board: existing(id), added } satisfies AddBoardImagesResponse);
  });

  router.delete('/boards/:id/images/:imageId', (req, res) => {
    const { id } = existing(req.params.id);
    if (!deps.boards.removeImage(id, req.params.imageId)) throw notFound('image on this board');
    res.json({ ok: true });
  });

  return router;
}
