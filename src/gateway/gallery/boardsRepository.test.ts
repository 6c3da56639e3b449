import { describe, expect, it } from 'vitest';
import { ENGINES, testStorage } from '../storage/testing';
import { createBoardsRepository } from './boardsRepository';
import { createImagesRepository, type NewImage } from './repository';

const image = (id: string): NewImage => ({
  id,
  requestId: `req_${id}`,
  index: 0,
  createdAt: 1_000,
  source: 'studio',
  endpoint: '/images/generations',
  prompt: 'a prompt',
  revisedPrompt: null,
  model: 'image-model-2',
  requestedSize: '1024x1024',
  deliveredSize: '1024x1024',
  quality: 'low',
  outputFormat: 'png',
  outputCompression: null,
  background: 'auto',
  moderation: null,
  width: 1024,
  height: 1024,
  bytes: 10,
  inputTokens: 1,
  outputTokens: 2,
  totalTokens: 3,
  costMicros: 4,
  parentId: null,
  apiKeyId: null,
  fallbackStep: null,
  file: `2026/01/${id}.png`,
  mask: null,
});

describe.each(ENGINES)('boards repository on %s', (kind) => {
  it('makes, renames, fills and empties boards; a name is taken once', async () => {
    const { engine, connect } = await testStorage(kind);
    const boards = createBoardsRepository(engine);
    const images = createImagesRepository(engine);
    await images.insert(image('img_01'));
    await images.insert(image('img_02'));
    const board = (await boards.create('Project', 1))!;
    expect(board).toEqual({
      id: board.id,
      name: 'Project',
      createdAt: 1,
      images: 0,
      coverId: null,
    });
    // Another instance making the same name at the same time gets nothing, not an error.
    expect(await createBoardsRepository(await connect()).create('Project', 2)).toBeNull();
    expect(await boards.add(board.id, ['img_01', 'img_02'], 5)).toBe(2);
    expect(await boards.add(board.id, ['img_01'], 6)).toBe(0);
    expect(await boards.get(board.id)).toMatchObject({ images: 2, coverId: 'img_02' });
    expect(await boards.rename(board.id, 'Renamed')).toMatchObject({ name: 'Renamed' });
    expect((await boards.byName('Renamed'))?.id).toBe(board.id);
    expect(await boards.rename('board_none', 'x')).toBeNull();
    expect(await boards.removeImage(board.id, 'img_02')).toBe(true);
    expect(await boards.removeImage(board.id, 'img_02')).toBe(false);
    await images.remove('img_01');
    expect(await boards.get(board.id)).toMatchObject({ images: 0, coverId: null });
    expect((await boards.list()).map((b) => b.name)).toEqual(['Renamed']);
    expect(await boards.remove(board.id)).toBe(true);
    expect(await boards.remove(board.id)).toBe(false);
  });
});
