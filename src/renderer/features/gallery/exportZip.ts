/**
 * Exports gallery images as one ZIP: each image file, a sidecar `<name>.json` with its prompt,
 * parameters, mask reference and cost, the mask file of a masked edit, and, for PNGs, the same
 * metadata inside the file (an iTXt chunk `atelier` with the JSON, `Description` with the prompt).
 *
 * Memory: images are fetched one at a time and stored, not recompressed (PNG, JPEG and WebP are
 * compressed already). The ZIP's bytes go into Blob parts as each file is written, so the
 * archive is never one string or one array: at any moment JS holds the current image (twice at
 * most while its text chunks are added) and the Blob parts, which the browser may keep on disk.
 */
import { Zip, ZipPassThrough, strToU8 } from 'fflate';
import type { ImageRecord } from '../../../shared/admin';
import { imageFileName } from '../../lib/files';
import { isPng, itxtChunk, textChunk, withPngChunks } from './pngText';

export interface ExportDeps {
  imageFile: (id: string) => Promise<Blob>;
  maskFile: (id: string) => Promise<Blob>;
  keyName: (id: string | null) => string | null;
}

/** What the sidecar JSON and the PNG's `atelier` chunk hold. */
export function imageMetadata(
  image: ImageRecord,
  keyName: string | null,
  maskFile: string | null,
): Record<string, unknown> {
  return {
    app: 'Atelier',
    id: image.id,
    requestId: image.requestId,
    createdAt: new Date(image.createdAt).toISOString(),
    source: image.source,
    prompt: image.prompt,
    revisedPrompt: image.revisedPrompt,
    parameters: {
      endpoint: image.endpoint,
      model: image.model,
      requestedSize: image.requestedSize,
      deliveredSize: image.deliveredSize,
      quality: image.quality,
      outputFormat: image.outputFormat,
      outputCompression: image.outputCompression,
      background: image.background,
      moderation: image.moderation,
      index: image.index,
      fallbackStep: image.fallbackStep,
    },
    width: image.width,
    height: image.height,
    cost: { usd: image.costMicros / 1_000_000, micros: image.costMicros },
    tokens: { input: image.inputTokens, output: image.outputTokens, total: image.totalTokens },
    apiKey: image.apiKeyId ? { id: image.apiKeyId, name: keyName } : null,
    parentId: image.parentId,
    mask: image.hasMask
      ? { file: maskFile, url: `/api/admin/images/${encodeURIComponent(image.id)}/mask` }
      : null,
  };
}

/** Stems of the archive's names (the download's name less its extension), made unique. */
function uniqueStems() {
  const used = new Set<string>();
  return (stem: string) => {
    let candidate = stem;
    for (let n = 2; used.has(candidate.toLowerCase()); n++) candidate = `${stem}-${n}`;
    used.add(candidate.toLowerCase());
    return candidate;
  };
}

export async function exportImagesZip(
  images: readonly ImageRecord[],
  deps: ExportDeps,
  onProgress: (done: number, total: number) => void = () => undefined,
): Promise<Blob> {
  const parts: Blob[] = [];
  let pending: Uint8Array<ArrayBuffer>[] = [];
  let failure: Error | null = null;
  let finished!: () => void;
  const ended = new Promise<void>((resolve) => (finished = resolve));
  const zip = new Zip((error, data, final) => {
    if (error) failure = error;
    else pending.push(data as Uint8Array<ArrayBuffer>);
    if (final || error) finished();
  });
  const flush = () => {
    if (pending.length > 0) parts.push(new Blob(pending));
    pending = [];
  };
  const add = (name: string, bytes: Uint8Array, mtime: number) => {
    const file = new ZipPassThrough(name);
    file.mtime = mtime;
    zip.add(file);
    file.push(bytes, true);
    if (failure) throw failure;
  };

  const stemOf = uniqueStems();
  let done = 0;
  for (const image of images) {
    const blob = await deps.imageFile(image.id);
    const download = imageFileName(blob, new Date(image.createdAt), image.index);
    const ext = download.slice(download.lastIndexOf('.'));
    // Each image's files share one stem: x.png, x.json and x.mask.png belong together.
    const stem = stemOf(download.slice(0, -ext.length));
    const fileName = `${stem}${ext}`;
    let maskName: string | null = null;
    if (image.hasMask) {
      maskName = `${stem}.mask.png`;
      const mask = await deps.maskFile(image.id);
      add(maskName, new Uint8Array(await mask.arrayBuffer()), image.createdAt);
    }
    const metadata = imageMetadata(image, deps.keyName(image.apiKeyId), maskName);
    const json = JSON.stringify(metadata, null, 2);
    let bytes: Uint8Array = new Uint8Array(await blob.arrayBuffer());
    if (isPng(bytes)) {
      bytes = withPngChunks(bytes, [
        itxtChunk('atelier', JSON.stringify(metadata)),
        itxtChunk('Description', image.prompt),
        textChunk('Software', 'Atelier'),
      ]);
    }
    add(fileName, bytes, image.createdAt);
    add(`${stem}.json`, strToU8(json), image.createdAt);
    flush();
    done += 1;
    onProgress(done, images.length);
  }
  zip.end();
  await ended;
  if (failure) throw failure;
  flush();
  return new Blob(parts, { type: 'application/zip' });
}

/** atelier-export-20261124-1530-12-images.zip */
export function zipName(count: number, at = new Date()): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  const stamp = `${at.getFullYear()}${pad(at.getMonth() + 1)}${pad(at.getDate())}-${pad(at.getHours())}${pad(at.getMinutes())}`;
  return `atelier-export-${stamp}-${count}-image${count === 1 ? '' : 's'}.zip`;
}

/** "atelier-board-harbour-series-12-images.zip": a board's export, named after the board. */
export function boardZipName(board: string, count: number): string {
  const slug =
    board
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 60) || 'board';
  return `atelier-board-${slug}-${count}-image${count === 1 ? '' : 's'}.zip`;
}
