/** The gallery's boards (/api/admin/boards). */
import {
  addBoardImagesResponseSchema,
  boardResponseSchema,
  boardsResponseSchema,
  okSchema,
} from '../../../shared/admin';
import type { Requester } from './request';

const boardPath = (id: string) => `/api/admin/boards/${encodeURIComponent(id)}`;

export function boardsApi(request: Requester) {
  return {
    boards: async (signal?: AbortSignal) =>
      (await request.json(boardsResponseSchema, '/api/admin/boards', { signal })).boards,
    createBoard: async (name: string) =>
      (
        await request.json(boardResponseSchema, '/api/admin/boards', {
          method: 'POST',
          body: { name },
        })
      ).board,
    renameBoard: async (id: string, name: string) =>
      (await request.json(boardResponseSchema, boardPath(id), { method: 'PATCH', body: { name } }))
        .board,
    deleteBoard: (id: string) => request.json(okSchema, boardPath(id), { method: 'DELETE' }),
    addToBoard: (id: string, imageIds: string[]) =>
      request.json(addBoardImagesResponseSchema, `${boardPath(id)}/images`, {
        method: 'POST',
        body: { imageIds },
      }),
  };
}
