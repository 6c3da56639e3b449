import sharp from 'sharp';

/**
 * Spot checks, once per case and outside the timed calls: the gateway's answer really carries an
 * image of the asked size. Returns the base64 length, which the memory targets are stated in.
 */
async function checkB64(
  b64: unknown,
  width: number,
  height: number,
  what: string,
): Promise<number> {
  if (typeof b64 !== 'string' || b64.length === 0) throw new Error(`${what}: no b64_json`);
  const meta = await sharp(Buffer.from(b64, 'base64')).metadata();
  if (meta.width !== width || meta.height !== height) {
    throw new Error(`${what}: got ${meta.width}x${meta.height}, wanted ${width}x${height}`);
  }
  return b64.length;
}

export function checkImagesJson(body: Buffer, width: number, height: number): Promise<number> {
  const doc = JSON.parse(body.toString('utf8')) as { data?: Array<{ b64_json?: unknown }> };
  return checkB64(doc.data?.[0]?.b64_json, width, height, 'images JSON');
}

export function checkImagesSse(body: Buffer, width: number, height: number): Promise<number> {
  const blocks = body.toString('utf8').split('\n\n');
  const completed = blocks.find((b) => /^event: image_(generation|edit)\.completed$/m.test(b));
  if (!completed) throw new Error('image stream: no completed event');
  const data = /^data: (.*)$/m.exec(completed)?.[1] ?? '';
  const doc = JSON.parse(data) as { b64_json?: unknown };
  return checkB64(doc.b64_json, width, height, 'image stream');
}
