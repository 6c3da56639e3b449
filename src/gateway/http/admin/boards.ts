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
  const existing = async (id: string) => {
    const board = await deps.boards.get(id);
    if (!board) throw notFound('board');
    return board;
  };
  const nameTaken = (name: string) => invalidParam('name', `A board named '${name}' exists.`);
  const freeName = async (name: string, self?: string) => {
    const taken = await deps.boards.byName(name);
    if (taken && taken.id !== self) throw nameTaken(name);
  };

  router.get('/boards', async (_req, res) => {
    res.json({ boards: await deps.boards.list() } satisfies BoardsResponse);
  });

  router.post('/boards', async (req, res) => {
    const { name } = parse(boardBodySchema, req.body);
    await freeName(name);
    // Made by another instance (or tab) since the check: the name is taken all the same.
    const board = await deps.boards.create(name, deps.now());
    if (!board) throw nameTaken(name);
    res.json({ board } satisfies BoardResponse);
  });

  router.patch('/boards/:id', async (req, res) => {
    const { name } = parse(boardBodySchema, req.body);
    const { id } = await existing(req.params.id);
    await freeName(name, id);
    const board = await deps.boards.rename(id, name);
    if (!board) throw notFound('board');
    res.json({ board } satisfies BoardResponse);
  });

  router.delete('/boards/:id', async (req, res) => {
    if (!(await deps.boards.remove(req.params.id))) throw notFound('board');
    res.json({ ok: true });
  });

  router.post('/boards/:id/images', async (req, res) => {
    const { imageIds } = parse(addBoardImagesBodySchema, req.body);
    const { id } = await existing(req.params.id);
    // Every id is checked before any is added: a bad one adds none.
    for (const [index, imageId] of imageIds.entries()) {
      if (!(await deps.images.exists(imageId)))
        throw invalidParam(`imageIds.${index}`, `No image '${imageId}' in the gallery.`);
    }
    const added = await deps.boards.add(id, imageIds, deps.now());
    res.json({ board: await existing(id), added } satisfies AddBoardImagesResponse);
  });

  router.delete('/boards/:id/images/:imageId', async (req, res) => {
    const { id } = await existing(req.params.id);
    if (!(await deps.boards.removeImage(id, req.params.imageId)))
      throw notFound('image on this board');
    res.json({ ok: true });
  });

  return router;
}
