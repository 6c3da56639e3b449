import type { JsonChunks } from '../src/gateway/upstream/subscription/jsonChunks';
import { bridgeBody, nativeBody } from '../src/gateway/upstream/subscription/requestBodies';
import type { ImageJob } from '../src/gateway/upstream/types';
import type { Target } from './http';
import type { SimulatorReady } from './protocol';
import { BRIDGE_MODEL, UPSTREAM_API_KEY, type BenchSetup, type Transport } from './setup';

export const IMAGE_MODEL = 'image-model-2';

export interface GenerationParams {
  size: string;
  quality: 'low' | 'medium' | 'high';
  /** Partial images to stream; 0 = a plain JSON answer. */
  partialImages: number;
  prompt?: string;
}

const json = (value: unknown) => Buffer.from(JSON.stringify(value));
const concat = (body: JsonChunks) => Buffer.concat(body.chunks, body.length);

function fields(p: GenerationParams) {
  const body: Record<string, unknown> = {
    model: IMAGE_MODEL,
    prompt: p.prompt ?? 'a benchmark of noise',
    n: 1,
    size: p.size,
    quality: p.quality,
    output_format: 'png',
  };
  if (p.partialImages > 0) Object.assign(body, { stream: true, partial_images: p.partialImages });
  return body;
}

/** A generation through the gateway: the key picks the transport. */
export function throughGeneration(
  gatewayUrl: string,
  setup: BenchSetup,
  transport: Transport,
  p: GenerationParams,
): Target {
  return {
    url: `${gatewayUrl}/v1/images/generations`,
    headers: {
      authorization: `Bearer ${setup.keys[transport]}`,
      'content-type': 'application/json',
      accept: p.partialImages > 0 ? 'text/event-stream' : 'application/json',
    },
    body: json(fields(p)),
  };
}

/**
 * The same work asked of the simulator directly, in the request the gateway's adapter for that
 * transport sends (the subscription bodies come from the adapter's own builders).
 */
export function directGeneration(
  sim: SimulatorReady,
  setup: BenchSetup,
  transport: Transport,
  p: GenerationParams,
): Target {
  if (transport === 'apiKey') {
    return {
      url: `${sim.url}/v1/images/generations`,
      headers: {
        authorization: `Bearer ${UPSTREAM_API_KEY}`,
        'content-type': 'application/json',
        accept: p.partialImages > 0 ? 'text/event-stream' : 'application/json',
      },
      body: json(fields(p)),
    };
  }
  const job: ImageJob = {
    operation: 'generate',
    model: IMAGE_MODEL,
    prompt: p.prompt ?? 'a benchmark of noise',
    size: p.size,
    quality: p.quality,
    outputFormat: 'png',
    partialImages: p.partialImages,
    images: [],
  };
  const tokens = setup.tokens[transport];
  const headers = {
    authorization: `Bearer ${tokens.accessToken}`,
    'chatgpt-account-id': tokens.accountId,
    'content-type': 'application/json',
  };
  // The native channel does not stream; partial images always take the bridge.
  if (transport === 'native' && p.partialImages === 0) {
    return {
      url: `${sim.url}/backend-api/codex/images/generations`,
      headers: { ...headers, accept: 'application/json' },
      body: concat(nativeBody(job)),
    };
  }
  const base = transport === 'bridge' ? sim.bridgeUrl : sim.url;
  return {
    url: `${base}/backend-api/codex/responses`,
    headers: { ...headers, accept: 'text/event-stream' },
    body: concat(bridgeBody(job, BRIDGE_MODEL, p.partialImages > 0)),
  };
}

/** A multipart edit body, built once and sent as the same bytes to both sides. */
export function multipartEdit(
  fieldsIn: Record<string, string>,
  files: Array<{ name: string; filename: string; bytes: Buffer }>,
): { contentType: string; body: Buffer } {
  const boundary = `----atelier-bench-${Date.now().toString(16)}`;
  const parts: Buffer[] = [];
  for (const [name, value] of Object.entries(fieldsIn)) {
    parts.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`,
      ),
    );
  }
  for (const file of files) {
    parts.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${file.name}"; filename="${file.filename}"\r\n` +
          'Content-Type: image/png\r\n\r\n',
      ),
      file.bytes,
      Buffer.from('\r\n'),
    );
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return { contentType: `multipart/form-data; boundary=${boundary}`, body: Buffer.concat(parts) };
}

/**
 * A direct request sent through the reference proxy instead (`mode`: stream or buffer): the
 * floor, the same upstream bytes carried by a Node process that does nothing else. A bridge
 * request goes to the simulator without a native channel, as directly.
 */
export function viaProxy(
  sim: SimulatorReady,
  proxyUrl: string,
  direct: Target,
  mode: 'stream' | 'buffer' = 'stream',
): Target {
  const url = direct.url.startsWith(`${sim.bridgeUrl}/`)
    ? direct.url.replace(sim.bridgeUrl, `${proxyUrl}/${mode}/bridge`)
    : direct.url.replace(sim.url, `${proxyUrl}/${mode}`);
  return { ...direct, url };
}
