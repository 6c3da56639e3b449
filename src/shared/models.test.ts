import { describe, expect, it } from 'vitest';
import { DEFAULT_TEXT_MODELS, describeModel, IMAGE_MODELS } from './models';

describe('describeModel', () => {
  it('has one sentence for every model the studio offers', () => {
    for (const model of [...IMAGE_MODELS, ...DEFAULT_TEXT_MODELS]) {
      const text = describeModel(model);
      expect(text, model).toMatch(/^[A-Z].{20,140}\.$/);
      expect(text!.split(/\.\s/), `${model}: one sentence`).toHaveLength(1);
    }
    expect(describeModel('image-model-2')).not.toBe(describeModel('image-model-2-2026-04-21'));
  });

  it('says nothing of a model it does not know, nor of an object key', () => {
    expect(describeModel('someone-elses-model')).toBeNull();
    expect(describeModel('constructor')).toBeNull();
    expect(describeModel(null)).toBeNull();
    expect(describeModel('')).toBeNull();
  });
});
