import type { TokenUsage } from '../../shared/imageParams';
import { normaliseUsage } from '../../shared/tokenUsage';
import { piecesLength, type Base64Pieces } from '../bytes/base64Pieces';
import { parseSplicedJson, splicedPieces, type SplicedJson } from '../bytes/jsonSplice';
import type { ResponsesImage } from '../gallery/port';

interface ItemShape {
  id?: unknown;
  type?: unknown;
  result?: unknown;
  revised_prompt?: unknown;
}

interface ResponseShape {
  output?: unknown;
  tool_usage?: { image_gen?: unknown };
}

/**
 * Collects the images a relayed Responses call made, reading what was already forwarded: the
 * stream itself passes through untouched. A result arrives twice in a stream (in
 * `response.output_item.done` and again in the final response), so each call id is kept once,
 * from the first event that carries it; the later copy is dropped with its event.
 */
export class ResponsesImageTap {
  private readonly byId = new Map<string, ResponsesImage>();
  private usage: TokenUsage | null = null;

  /** A `response.output_item.done` event's data: the one item it finished. */
  outputItemDone(data: Buffer | Base64Pieces): void {
    const doc = parseSplicedJson<{ item?: ItemShape }>(data);
    if (doc.value.item) this.item(doc, doc.value.item);
  }

  /** The final response object (a whole reply, or the `response` of a terminal event). */
  response(doc: SplicedJson, response: ResponseShape | undefined): void {
    if (!response) return;
    if (Array.isArray(response.output)) {
      for (const item of response.output as ItemShape[]) this.item(doc, item);
    }
    if (response.tool_usage?.image_gen !== undefined) {
      this.usage = normaliseUsage(response.tool_usage.image_gen, { imageModel: true });
    }
  }

  images(): ResponsesImage[] {
    return [...this.byId.values()];
  }

  imageUsage(): TokenUsage | null {
    return this.usage;
  }

  private item(doc: SplicedJson, item: ItemShape | null | undefined): void {
    if (!item || item.type !== 'image_generation_call') return;
    const id = typeof item.id === 'string' ? item.id : `#${this.byId.size}`;
    if (this.byId.has(id)) return;
    const b64 = splicedPieces(doc, item.result);
    if (!b64 || piecesLength(b64) === 0) return;
    this.byId.set(id, {
      b64,
      revisedPrompt: typeof item.revised_prompt === 'string' ? item.revised_prompt : null,
    });
  }
}
