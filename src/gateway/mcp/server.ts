import { randomBytes } from 'node:crypto';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { GatewayEvents } from '../core/events';
import { VERSION } from '../core/version';
import type { McpGallery } from './gallery';
import { followRequest } from './requestOutcome';
import { RESOURCE_PREFIX } from './resourceUri';
import { describeResult, type ToolImage } from './results';
import {
  editImageInput,
  findImagesInput,
  generateImageInput,
  getSpendInput,
  toolInputSchema,
} from './toolSchemas';
import { resolveImageInput, ToolInputError } from './imageInput';
import { streamImages, V1Error, type PartialImage } from './v1Client';

/** What the MCP server needs of the gateway it runs in. */
export interface McpDeps {
  /** The gateway's own base URL (the tools' /v1 requests go there). */
  baseUrl(): string;
  events: GatewayEvents;
  gallery: McpGallery;
  /** Whether the gallery keeps API callers' images now (Settings). */
  keepsApiImages(): boolean;
  /** The key's spend and limits, as get_spend answers them. */
  spendOf(keyId: string): Promise<Record<string, unknown>>;
  /** Stops the upstream work of the key's run (studioRuns.cancelForKey). */
  cancelRun(keyId: string, runId: string, reason: string): boolean;
}

/** Who the MCP session is: the key it authenticated with (its plaintext, to call /v1 as it). */
export interface McpCaller {
  key: string;
  keyId: string;
}

const TOOLS = [
  {
    name: 'generate_image',
    title: 'Generate an image',
    description:
      "Makes images from a prompt through Atelier (the key's limits and budget apply; the images are kept in the gallery). Returns a preview of each and a link to the full image.",
    schema: generateImageInput,
  },
  {
    name: 'edit_image',
    title: 'Edit an image',
    description:
      'Edits an image (a gallery image id, a file, or base64) from a prompt; with a mask, only its transparent part is redrawn. Returns previews and links like generate_image.',
    schema: editImageInput,
  },
  {
    name: 'find_images',
    title: 'Find images in the gallery',
    description: 'Searches the gallery images made with this key, newest first, by prompt words.',
    schema: findImagesInput,
  },
  {
    name: 'get_spend',
    title: 'Spend and limits',
    description:
      "This key's spend and its limits: budget, requests per minute, images per day, expiry.",
    schema: getSpendInput,
  },
] as const;

/** One MCP server (one session) for one key. */
export async function createMcpServer(deps: McpDeps, caller: McpCaller): Promise<Server> {
  // The SDK loads with the first MCP session, not with the gateway (http/mcpRoute.ts says why).
  const [sdk, schemas] = await Promise.all([
    import('@modelcontextprotocol/sdk/server/index.js'),
    import('@modelcontextprotocol/sdk/types.js'),
  ]);
  const {
    CallToolRequestSchema,
    ListResourcesRequestSchema,
    ListResourceTemplatesRequestSchema,
    ListToolsRequestSchema,
    ReadResourceRequestSchema,
  } = schemas;
  const server = new sdk.Server(
    { name: 'atelier', title: 'Atelier', version: VERSION },
    {
      capabilities: { tools: {}, resources: {}, logging: {} },
      instructions:
        'Atelier makes and edits images through its local gateway. Results carry a preview and a resource link (atelier://images/<id>) to the full image.',
    },
  );

  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: TOOLS.map((tool) => ({
      name: tool.name,
      title: tool.title,
      description: tool.description,
      inputSchema: toolInputSchema(tool.schema),
    })),
  }));

  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({
    resourceTemplates: [
      {
        uriTemplate: `${RESOURCE_PREFIX}{id}`,
        name: 'gallery-image',
        title: 'A gallery image',
        description: 'The full image, as it was delivered (PNG, JPEG or WebP).',
      },
    ],
  }));

  server.setRequestHandler(ListResourcesRequestSchema, async () => ({
    resources: (await deps.gallery.find(caller.keyId, { limit: 50 })).images.map((image) => ({
      uri: `${RESOURCE_PREFIX}${image.id}`,
      name: image.id,
      title: image.prompt.slice(0, 80),
      mimeType: image.mimeType,
    })),
  }));

  server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    const id = request.params.uri.startsWith(RESOURCE_PREFIX)
      ? request.params.uri.slice(RESOURCE_PREFIX.length)
      : '';
    const image = await deps.gallery.read(caller.keyId, id);
    if (!image) throw new Error(`No image of this key's in the gallery at ${request.params.uri}`);
    return {
      contents: [
        { uri: request.params.uri, mimeType: image.mimeType, blob: image.bytes.toString('base64') },
      ],
    };
  });

  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const args = (request.params.arguments ?? {}) as Record<string, unknown>;
    const progressToken = extra._meta?.progressToken;
    let progress = 0;
    const sendProgress = async (message: string, total?: number) => {
      if (progressToken === undefined) return;
      progress += 1;
      await extra.sendNotification({
        method: 'notifications/progress',
        params: { progressToken, progress, ...(total ? { total } : {}), message },
      });
    };
    try {
      switch (request.params.name) {
        case 'generate_image':
        case 'edit_image':
          return await runImageTool(request.params.name, args, {
            deps,
            caller,
            signal: extra.signal,
            sendProgress,
            log: (data) => server.sendLoggingMessage({ level: 'notice', logger: 'atelier', data }),
          });
        case 'find_images':
          return await findImages(deps, caller, args);
        case 'get_spend':
          return textResult(await deps.spendOf(caller.keyId));
        default:
          return errorResult(`Unknown tool '${request.params.name}'.`, null);
      }
    } catch (error) {
      if (error instanceof V1Error || error instanceof ToolInputError) {
        return errorResult(error.message, error.param, error instanceof V1Error ? error : null);
      }
      throw error;
    }
  });
  return server;
}

interface ImageToolContext {
  deps: McpDeps;
  caller: McpCaller;
  signal: AbortSignal;
  sendProgress(message: string, total?: number): Promise<void>;
  log(data: unknown): Promise<void>;
}

async function runImageTool(
  name: 'generate_image' | 'edit_image',
  args: Record<string, unknown>,
  ctx: ImageToolContext,
): Promise<CallToolResult> {
  const { deps, caller } = ctx;
  const { image, mask, ...options } = args;
  const body: Record<string, unknown> = { model: 'image-model-2', ...options };
  let parentImageId: string | undefined;
  if (name === 'edit_image') {
    const input = await resolveImageInput(image, 'image', deps.gallery, caller.keyId);
    parentImageId = input.galleryId;
    body.images = [{ image_url: input.dataUrl }];
    if (mask !== undefined && mask !== null) {
      body.mask = {
        image_url: (await resolveImageInput(mask, 'mask', deps.gallery, caller.keyId)).dataUrl,
      };
    }
  }
  const n = typeof body.n === 'number' ? body.n : 1;
  const partials = typeof body.partial_images === 'number' ? body.partial_images : 0;
  const total = n * (partials + 1);
  const runId = `mcp_${randomBytes(12).toString('hex')}`;
  let follow: ReturnType<typeof followRequest> | null = null;
  let requestId: string | null = null;
  // The host's cancel stops the upstream work (the request ends as 499, its row says so); what
  // was already delivered is billed, and the host is told how much once the row is written.
  const fetchAbort = new AbortController();
  const onCancel = () => {
    const stopped = deps.cancelRun(caller.keyId, runId, 'cancelled by the MCP host');
    if (!stopped) fetchAbort.abort(ctx.signal.reason);
  };
  ctx.signal.addEventListener('abort', onCancel, { once: true });
  try {
    const onPartial = (partial: PartialImage) =>
      void ctx.sendProgress(
        `partial image ${partial.partialIndex + 1} of image ${partial.imageIndex + 1}`,
        total,
      );
    const { images } = await streamImages(
      name === 'generate_image' ? 'images/generations' : 'images/edits',
      body,
      {
        baseUrl: deps.baseUrl(),
        key: caller.key,
        runId,
        parentImageId,
        signal: fetchAbort.signal,
        onPartial,
        onRequestId: (id) => {
          requestId = id;
          follow = followRequest(deps.events, id, deps.keepsApiImages);
        },
      },
    );
    for (const image of images) {
      await ctx.sendProgress(`image ${image.index + 1} of ${n} delivered`, total);
    }
    const outcome = follow
      ? await (follow as ReturnType<typeof followRequest>).outcome(images.length)
      : null;
    const ids = requestId ? await deps.gallery.keptFor(requestId) : [];
    const toolImages: ToolImage[] = images.map((image, i) => ({
      ...image,
      bytes: Buffer.from(image.b64, 'base64'),
      galleryId: ids[i] ?? null,
    }));
    return await describeResult({
      requestId,
      images: toolImages,
      costMicros: outcome?.costMicros ?? null,
      galleryKeeps: deps.keepsApiImages(),
    });
  } catch (error) {
    if (ctx.signal.aborted && follow) {
      const outcome = await (follow as ReturnType<typeof followRequest>).outcome(0);
      await ctx.log({
        event: 'cancelled',
        tool: name,
        request_id: requestId,
        billed_usd: outcome.costMicros / 1e6,
        message: `Cancelled: request ${requestId} stopped upstream; billed $${(outcome.costMicros / 1e6).toFixed(4)}.`,
      });
    }
    throw error;
  } finally {
    ctx.signal.removeEventListener('abort', onCancel);
    if (follow) (follow as ReturnType<typeof followRequest>).stop();
  }
}

async function findImages(
  deps: McpDeps,
  caller: McpCaller,
  args: Record<string, unknown>,
): Promise<CallToolResult> {
  const parsed = findImagesInput.safeParse(args);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    return errorResult(`${issue.path.join('.')}: ${issue.message}`, issue.path.join('.'));
  }
  const page = await deps.gallery.find(caller.keyId, {
    q: parsed.data.query,
    limit: parsed.data.limit ?? 10,
    before: parsed.data.before,
  });
  const images = page.images.map((image) => ({
    gallery_id: image.id,
    uri: `${RESOURCE_PREFIX}${image.id}`,
    prompt: image.prompt,
    size: image.size,
    output_format: image.outputFormat,
    created_at: new Date(image.createdAt).toISOString(),
  }));
  return {
    content: [
      { type: 'text', text: JSON.stringify({ images, next_before: page.nextBefore }, null, 2) },
      ...page.images.map((image) => ({
        type: 'resource_link' as const,
        uri: `${RESOURCE_PREFIX}${image.id}`,
        name: image.id,
        description: image.prompt.slice(0, 200),
        mimeType: image.mimeType,
      })),
    ],
    structuredContent: { images, next_before: page.nextBefore },
  };
}

function textResult(value: Record<string, unknown>): CallToolResult {
  return {
    content: [{ type: 'text', text: JSON.stringify(value, null, 2) }],
    structuredContent: value,
  };
}

/** A refusal as /v1 said it: the same message, with its parameter and code alongside. */
function errorResult(
  message: string,
  param: string | null,
  v1: V1Error | null = null,
): CallToolResult {
  return {
    isError: true,
    content: [{ type: 'text', text: message }],
    structuredContent: {
      error: {
        message,
        param,
        code: v1?.code ?? null,
        status: v1?.status ?? 400,
        request_id: v1?.requestId ?? null,
      },
    },
  };
}
