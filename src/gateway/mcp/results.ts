import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { mimeTypeOf } from './gallery';
import { previewOf } from './preview';
import { RESOURCE_PREFIX } from './resourceUri';

export interface ToolImage {
  index: number;
  bytes: Buffer;
  size: string;
  outputFormat: string;
  galleryId: string | null;
}

/**
 * A finished image tool call as the host sees it: a line of text (what was made, what it cost),
 * then per image a preview it can show and a link to the full image in the gallery.
 */
export async function describeResult(run: {
  requestId: string | null;
  images: ToolImage[];
  costMicros: number | null;
  galleryKeeps: boolean;
}): Promise<CallToolResult> {
  const content: CallToolResult['content'] = [];
  const images = [];
  for (const image of run.images) {
    const preview = await previewOf(image.bytes);
    const uri = image.galleryId ? `${RESOURCE_PREFIX}${image.galleryId}` : null;
    content.push({
      type: 'image',
      data: preview.data.toString('base64'),
      mimeType: preview.mimeType,
    });
    if (uri) {
      content.push({
        type: 'resource_link',
        uri,
        name: image.galleryId!,
        title: `Image ${image.index + 1}, ${image.size} ${image.outputFormat}`,
        mimeType: mimeTypeOf(image.outputFormat),
      });
    }
    images.push({
      index: image.index,
      gallery_id: image.galleryId,
      uri,
      size: image.size,
      output_format: image.outputFormat,
      bytes: image.bytes.length,
      preview: { width: preview.width, height: preview.height, bytes: preview.data.length },
    });
  }
  const cost =
    run.costMicros === null
      ? 'cost not recorded yet'
      : `billed $${(run.costMicros / 1e6).toFixed(4)}`;
  const kept = run.galleryKeeps
    ? 'full images in the gallery (resource links)'
    : 'the gallery does not keep API images (Settings), so there are previews only';
  content.unshift({
    type: 'text',
    text: `Made ${run.images.length} image(s) (${run.images.map((i) => i.size).join(', ')}); request ${run.requestId}; ${cost}; ${kept}.`,
  });
  return {
    content,
    structuredContent: {
      request_id: run.requestId,
      cost_usd: run.costMicros === null ? null : run.costMicros / 1e6,
      images,
    },
  };
}
