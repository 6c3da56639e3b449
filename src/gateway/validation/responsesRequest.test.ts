import { describe, expect, it } from 'vitest';
import { ApiError } from '../core/errors';
import { DEFAULT_TEXT_MODELS } from '../../shared/models';
import { parseResponsesRequest } from './responsesRequest';

const TEXT = DEFAULT_TEXT_MODELS;
const base = (extra: Record<string, unknown> = {}) => ({
  model: 'agent-model-1',
  input: 'draw a fox',
  tools: [{ type: 'image_generation' }],
  ...extra,
});
const tool = (fields: Record<string, unknown>) =>
  base({ tools: [{ type: 'image_generation', ...fields }] });

function rejection(body: unknown, textModels: readonly string[] = TEXT): ApiError {
  try {
    parseResponsesRequest(body, textModels);
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(400);
    expect((error as ApiError).type).toBe('invalid_request_error');
    return error as ApiError;
  }
  throw new Error('expected a 400');
}

describe('parseResponsesRequest: top level', () => {
  it('returns the original body, the model, stream and the image tool', () => {
    const body = base({
      stream: true,
      tools: [{ type: 'web_search' }, { type: 'image_generation', size: '1024x1024' }],
    });
    const parsed = parseResponsesRequest(body, TEXT);
    expect(parsed.body).toBe(body);
    expect(parsed.model).toBe('agent-model-1');
    expect(parsed.stream).toBe(true);
    expect(parsed.imageTool).toEqual({ index: 1, size: '1024x1024' });
  });

  it('defaults: stream false, no tools -> imageTool null; nulls mean absent', () => {
    const parsed = parseResponsesRequest(base({ tools: null, stream: null }), TEXT);
    expect(parsed.stream).toBe(false);
    expect(parsed.imageTool).toBeNull();
    expect(
      parseResponsesRequest(base({ tools: [{ type: 'web_search' }] }), TEXT).imageTool,
    ).toBeNull();
  });

  it('accepts input as a string or an array', () => {
    expect(() =>
      parseResponsesRequest(base({ input: [{ role: 'user', content: 'x' }] }), TEXT),
    ).not.toThrow();
    expect(rejection(base({ input: undefined }))).toMatchObject({
      param: 'input',
      code: 'missing_required_parameter',
    });
    expect(rejection(base({ input: null })).param).toBe('input');
    expect(rejection(base({ input: 42 })).param).toBe('input');
  });

  it('rejects a body that is not an object with param null', () => {
    for (const body of [null, 'x', [base()]]) expect(rejection(body).param).toBeNull();
  });

  it('an image model as the main model is model_not_supported with the reason', () => {
    for (const model of ['image-model-2', 'image-model-2-2026-04-21']) {
      const error = rejection(base({ model }));
      expect(error).toMatchObject({ param: 'model', code: 'model_not_supported' });
      expect(error.message).toMatch(/not a main model for \/v1\/responses/);
      expect(error.message).toMatch(/agent-model-1/);
      expect(error.message).toMatch(/image_generation tool/);
    }
  });

  it('names the configured first text model in the hint', () => {
    const error = rejection(base({ model: 'image-model-2' }), ['house-model']);
    expect(error.message).toMatch(/such as house-model/);
  });

  it('an unknown model is model_not_found listing the valid ones', () => {
    const error = rejection(base({ model: 'gpt-9' }));
    expect(error).toMatchObject({ param: 'model', code: 'model_not_found' });
    expect(error.message).toMatch(/agent-model-1, agent-model-1-mini/);
    expect(rejection(base({ model: undefined }))).toMatchObject({
      code: 'missing_required_parameter',
    });
    expect(rejection(base({ model: 3 })).param).toBe('model');
  });

  it('stream must be a boolean', () => {
    expect(rejection(base({ stream: 'true' })).param).toBe('stream');
  });

  it('tools must be an array of objects', () => {
    expect(rejection(base({ tools: {} })).param).toBe('tools');
    expect(rejection(base({ tools: ['image_generation'] })).param).toBe('tools[0]');
  });
});

describe('parseResponsesRequest: the image_generation tool', () => {
  it('validates and maps every field', () => {
    const parsed = parseResponsesRequest(
      tool({
        model: 'image-model-2',
        quality: 'medium',
        size: '2048x1152',
        output_format: 'jpeg',
        output_compression: 70,
        background: 'opaque',
        moderation: 'auto',
        partial_images: 2,
        action: 'generate',
      }),
      TEXT,
    );
    expect(parsed.imageTool).toEqual({
      index: 0,
      model: 'image-model-2',
      quality: 'medium',
      size: '2048x1152',
      outputFormat: 'jpeg',
      outputCompression: 70,
      background: 'opaque',
      moderation: 'auto',
      partialImages: 2,
    });
  });

  it('treats null fields as absent', () => {
    const nulls = {
      model: null,
      quality: null,
      size: null,
      output_format: null,
      n: null,
      output_compression: null,
    };
    expect(parseResponsesRequest(tool(nulls), TEXT).imageTool).toEqual({ index: 0 });
  });

  it('names the tool in every param', () => {
    const at1 = (fields: Record<string, unknown>) =>
      base({
        tools: [
          { type: 'function', name: 'f' },
          { type: 'image_generation', ...fields },
        ],
      });
    expect(rejection(at1({ quality: 'ultra' })).param).toBe('tools[1].quality');
    expect(rejection(at1({ output_format: 'gif' })).param).toBe('tools[1].output_format');
    expect(rejection(at1({ moderation: 'none' })).param).toBe('tools[1].moderation');
  });

  it('applies the size rules', () => {
    expect(rejection(tool({ size: '3856x2160' }))).toMatchObject({
      param: 'tools[0].size',
      code: 'invalid_size',
    });
    expect(rejection(tool({ size: '1024x624' })).message).toMatch(/below the minimum 655360/);
    expect(parseResponsesRequest(tool({ size: 'auto' }), TEXT).imageTool?.size).toBe('auto');
  });

  it('rejects a transparent background', () => {
    const error = rejection(tool({ background: 'transparent' }));
    expect(error.param).toBe('tools[0].background');
    expect(error.message).toMatch(/not supported/);
  });

  it('output_compression: 0..100, and not with png (explicit or default)', () => {
    expect(rejection(tool({ output_compression: 50 })).param).toBe('tools[0].output_compression');
    expect(rejection(tool({ output_format: 'png', output_compression: 50 })).message).toMatch(
      /only to jpeg and webp/,
    );
    expect(rejection(tool({ output_format: 'webp', output_compression: 101 })).param).toBe(
      'tools[0].output_compression',
    );
    expect(
      parseResponsesRequest(tool({ output_format: 'webp', output_compression: 0 }), TEXT).imageTool
        ?.outputCompression,
    ).toBe(0);
  });

  it('partial_images: 0..3, integers only', () => {
    expect(parseResponsesRequest(tool({ partial_images: 3 }), TEXT).imageTool?.partialImages).toBe(
      3,
    );
    expect(rejection(tool({ partial_images: 4 })).param).toBe('tools[0].partial_images');
    expect(rejection(tool({ partial_images: '1' })).param).toBe('tools[0].partial_images');
  });

  it('n is rejected: one image per call', () => {
    const error = rejection(tool({ n: 2 }));
    expect(error.param).toBe('tools[0].n');
    expect(error.message).toMatch(/one image per call/);
  });

  it('the tool model must be an image model', () => {
    expect(rejection(tool({ model: 'agent-model-1' }))).toMatchObject({
      param: 'tools[0].model',
      code: 'model_not_supported',
    });
    expect(rejection(tool({ model: 'dall-e-9' }))).toMatchObject({
      param: 'tools[0].model',
      code: 'model_not_found',
    });
  });

  it('only one image_generation tool', () => {
    const error = rejection(
      base({ tools: [{ type: 'image_generation' }, { type: 'image_generation' }] }),
    );
    expect(error.param).toBe('tools[1]');
  });
});
