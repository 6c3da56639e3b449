import fs from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { databasePath } from '../../../src/gateway/core/dataDir';
import { openDatabase } from '../../../src/gateway/storage/db';
import { sqliteEngine } from '../../../src/gateway/storage/sqliteEngine';
import { createImagesRepository } from '../../../src/gateway/gallery/repository';
import { patternPng } from './images';

const WORDS = ['lighthouse', 'fox', 'harbour', 'forest', 'city', 'portrait', 'mountain', 'garden'];

/**
 * Fills a data folder's gallery with `count` images the way the gateway stores them (rows through
 * the images repository, files under images/), before the server starts. A handful of real image
 * and thumbnail files are shared by all rows: the browser still fetches one thumbnail per image,
 * as it would for distinct files.
 */
export async function seedGallery(dataDir: string, count: number): Promise<void> {
  const distinct = WORDS.length;
  const folder = path.join(dataDir, 'images', 'seed');
  fs.mkdirSync(folder, { recursive: true });
  for (let k = 0; k < distinct; k++) {
    const png = await patternPng(1024, 1024, k);
    fs.writeFileSync(path.join(folder, `img-${k}.png`), png);
    const thumb = await sharp(png)
      .resize(256, 256)
      .modulate({ hue: k * 40 })
      .webp({ quality: 80 })
      .toBuffer();
    fs.writeFileSync(path.join(folder, `img-${k}.thumb.webp`), thumb);
  }
  const db = openDatabase(databasePath(dataDir));
  try {
    const repo = createImagesRepository(sqliteEngine(db));
    const now = Date.now();
    // One transaction on the only connection (the server is not started yet).
    db.exec('BEGIN');
    for (let i = 0; i < count; i++) {
      const k = i % distinct;
      const id = `img_seed${String(i).padStart(6, '0')}`;
      await repo.insert({
        id,
        requestId: `req_seed${i}`,
        index: 0,
        createdAt: now - i * 60_000,
        source: i % 3 === 0 ? 'api' : 'studio',
        endpoint: '/images/generations',
        prompt: `Seeded ${WORDS[k]} number ${i}`,
        revisedPrompt: null,
        model: 'image-model-2',
        requestedSize: '1024x1024',
        deliveredSize: '1024x1024',
        quality: 'medium',
        outputFormat: 'png',
        outputCompression: null,
        background: 'auto',
        moderation: 'auto',
        width: 1024,
        height: 1024,
        bytes: 1_000_000,
        inputTokens: 12,
        outputTokens: 1056,
        totalTokens: 1068,
        costMicros: 31_740,
        parentId: null,
        apiKeyId: null,
        fallbackStep: null,
        file: `seed/img-${k}.png`,
        mask: null,
      });
      await repo.setThumb(id, `seed/img-${k}.thumb.webp`);
    }
    db.exec('COMMIT');
  } finally {
    db.close();
  }
}
