import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type {
  AddBoardImagesResponse,
  BoardResponse,
  BoardsResponse,
  ImagesPage,
} from '../../src/shared/admin';
import {
  keptImages,
  startTestGateway,
  studioLogin,
  type StudioClient,
  type TestGateway,
} from '../support/gateway';

let t: TestGateway;
let studio: StudioClient;
let ids: string[];

beforeAll(async () => {
  t = await startTestGateway();
  studio = await studioLogin(t);
  const res = await studio.fetch('/v1/images/generations', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'image-model-2', prompt: 'boards', quality: 'low', n: 3 }),
  });
  await res.arrayBuffer();
  ids = await keptImages(t, res.headers.get('x-request-id')!, 3);
});
afterAll(async () => {
  await t.close();
});

const send = (method: string, path: string, body?: unknown) =>
  studio.fetch(path, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
const refusal = async (res: Response) => [
  res.status,
  ((await res.json()) as { error: { param: string | null } }).error.param,
];

describe('boards (issue 22)', () => {
  let boardId: string;

  it('are made, renamed, filled and listed, and filter the gallery', async () => {
    const { board } = await studio.json<BoardResponse>('/api/admin/boards', {
      method: 'POST',
      body: { name: 'Harbour series' },
    });
    boardId = board.id;
    expect(board).toMatchObject({ name: 'Harbour series', images: 0, coverId: null });
    const added = await studio.json<AddBoardImagesResponse>(`/api/admin/boards/${boardId}/images`, {
      method: 'POST',
      body: { imageIds: [ids[0], ids[2], ids[0]] },
    });
    expect(added).toMatchObject({ added: 2, board: { images: 2 } });
    // Adding one again changes nothing.
    const again = await studio.json<AddBoardImagesResponse>(`/api/admin/boards/${boardId}/images`, {
      method: 'POST',
      body: { imageIds: [ids[2]] },
    });
    expect(again).toMatchObject({ added: 0, board: { images: 2 } });

    const onBoard = await studio.json<ImagesPage>(`/api/admin/images?board=${boardId}`);
    expect(onBoard.images.map((i) => i.id).sort()).toEqual([ids[0], ids[2]].sort());
    const renamed = await studio.json<BoardResponse>(`/api/admin/boards/${boardId}`, {
      method: 'PATCH',
      body: { name: 'Harbour, final' },
    });
    expect(renamed.board.name).toBe('Harbour, final');
    const { boards } = await studio.json<BoardsResponse>('/api/admin/boards');
    expect(boards).toEqual([expect.objectContaining({ id: boardId, images: 2 })]);
  });

  it('refuses a taken or empty name, an unknown image and unknown fields, naming them', async () => {
    await studio.json('/api/admin/boards', { method: 'POST', body: { name: 'Other' } });
    expect(await refusal(await send('POST', '/api/admin/boards', { name: 'Other' }))).toEqual([
      400,
      'name',
    ]);
    expect(await refusal(await send('POST', '/api/admin/boards', { name: '  ' }))).toEqual([
      400,
      'name',
    ]);
    expect(
      await refusal(await send('POST', '/api/admin/boards', { name: 'x', colour: 'red' })),
    ).toEqual([400, 'colour']);
    expect(
      await refusal(
        await send('POST', `/api/admin/boards/${boardId}/images`, {
          imageIds: [ids[1], 'img_missing'],
        }),
      ),
    ).toEqual([400, 'imageIds.1']);
    // Nothing was added by the refused request.
    const onBoard = await studio.json<ImagesPage>(`/api/admin/images?board=${boardId}`);
    expect(onBoard.images.map((i) => i.id)).not.toContain(ids[1]);
    expect(
      (await send('POST', '/api/admin/boards/board_nope/images', { imageIds: [ids[1]] })).status,
    ).toBe(404);
    expect(
      await refusal(await send('POST', `/api/admin/boards/${boardId}/images`, { imageIds: [] })),
    ).toEqual([400, 'imageIds']);
  });

  it('lose an image deleted from the gallery, and go without taking their images', async () => {
    await send('DELETE', `/api/admin/images/${ids[2]}`);
    const { board } = await studio.json<BoardResponse>(`/api/admin/boards/${boardId}`, {
      method: 'PATCH',
      body: { name: 'Harbour, final' },
    });
    expect(board.images).toBe(1);
    expect((await send('DELETE', `/api/admin/boards/${boardId}/images/${ids[0]}`)).status).toBe(
      200,
    );
    expect((await send('DELETE', `/api/admin/boards/${boardId}`)).status).toBe(200);
    expect((await send('DELETE', `/api/admin/boards/${boardId}`)).status).toBe(404);
    expect((await studio.json<ImagesPage>(`/api/admin/images?q=boards`)).images).toHaveLength(2);
    const rows = t.db.prepare('SELECT COUNT(*) FROM board_images').pluck().get();
    expect(rows).toBe(0);
  });
});
