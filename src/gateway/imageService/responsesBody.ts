/** Official agent clients identify themselves; they get the image tool when they leave it out. */
const AGENT_CLIENT = /codex/i;

/** Whether the request comes from an official agent client (by `originator` or user agent). */
export function fromAgentClient(headers: { originator?: unknown; userAgent?: unknown }): boolean {
  return (
    AGENT_CLIENT.test(String(headers.originator ?? '')) ||
    AGENT_CLIENT.test(String(headers.userAgent ?? ''))
  );
}

/** The caller's own words in a Responses body: `input` as text or as messages of text parts. */
export function inputText(body: Record<string, unknown>): string {
  const texts: string[] = [];
  const visit = (value: unknown): void => {
    if (typeof value === 'string') texts.push(value);
    else if (Array.isArray(value)) value.forEach(visit);
    else if (value && typeof value === 'object') {
      const part = value as { type?: unknown; text?: unknown; content?: unknown };
      if (typeof part.text === 'string') texts.push(part.text);
      if (part.content !== undefined) visit(part.content);
    }
  };
  visit(body.input);
  if (typeof body.instructions === 'string') texts.push(body.instructions);
  return texts.join('\n');
}

export function withImageTool(body: Record<string, unknown>): Record<string, unknown> {
  const tools = Array.isArray(body.tools) ? (body.tools as Array<{ type?: unknown }>) : [];
  if (tools.some((t) => t?.type === 'image_generation')) return body;
  return { ...body, tools: [...tools, { type: 'image_generation' }] };
}
