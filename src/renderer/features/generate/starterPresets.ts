/**
 * The presets the studio ships with, so a first session has somewhere to start. They are marked
 * as starters in the menu; a person can hide them (the studio remembers which) and bring them back.
 * Ids are fixed, so a hidden starter stays hidden across versions that reword it.
 */
import { EMPTY_DRAFT, type PromptDraft } from './composePrompt';
import { DEFAULT_PARAMS, type ImageParams } from './params';

export interface StarterPreset {
  id: `starter-${string}`;
  name: string;
  draft: PromptDraft;
  params: ImageParams;
}

const starter = (
  id: StarterPreset['id'],
  name: string,
  draft: Partial<PromptDraft>,
  params: Partial<ImageParams>,
): StarterPreset => ({
  id,
  name,
  draft: { ...EMPTY_DRAFT, ...draft },
  params: { ...DEFAULT_PARAMS, ...params },
});

export const STARTER_PRESETS: readonly StarterPreset[] = [
  starter(
    'starter-quick-draft',
    'Quick draft: low quality, square, for trying ideas cheaply',
    { constraints: 'rough composition is fine' },
    { size: '1024x1024', quality: 'low', partialImages: 1 },
  ),
  starter(
    'starter-product-shot',
    'Product shot on a plain background',
    {
      camera: 'eye level, 50 mm, the whole product in frame',
      style: 'clean commercial product photography',
      lighting: 'soft even studio light, gentle shadow under the product',
      constraints: 'plain light grey background, no text, no logos',
    },
    { size: '1024x1024', quality: 'high' },
  ),
  starter(
    'starter-portrait',
    'Portrait, 2:3, soft window light',
    {
      camera: '85 mm portrait lens, shallow depth of field, eyes in focus',
      style: 'natural photographic portrait',
      lighting: 'soft window light from one side',
    },
    { size: '1024x1536', quality: 'medium' },
  ),
  starter(
    'starter-landscape',
    'Wide landscape, 3:2, golden hour',
    {
      camera: 'wide angle, eye level, horizon on the lower third',
      lighting: 'golden hour, long warm shadows',
    },
    { size: '1536x1024', quality: 'medium' },
  ),
  starter(
    'starter-watercolour',
    'Watercolour illustration with loose washes and paper texture',
    {
      style: 'watercolour, loose washes, visible paper texture, soft edges',
      constraints: 'no text',
    },
    { size: '1024x1024', quality: 'medium' },
  ),
  starter(
    'starter-icon',
    'Flat icon or sticker, bold shapes',
    {
      style: 'flat vector illustration, bold simple shapes, thick outline',
      constraints: 'centred, one subject, plain white background, no text',
    },
    { size: '1024x1024', quality: 'medium', outputFormat: 'png' },
  ),
];

export function isStarterId(id: string): boolean {
  return STARTER_PRESETS.some((s) => s.id === id);
}
