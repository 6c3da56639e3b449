import { describe, expect, it } from 'vitest';
import type { ReferenceImage } from '../../stores/edit';
import { buildEditForm } from './editRequest';

const ref = (id: string, format: ReferenceImage['format']): ReferenceImage => ({
  id,
  name: id,
  blob: new Blob([id], { type: `image/${format}` }),
  url: '',
  width: 4,
  height: 4,
  format,
  galleryId: null,
});

const convert = async (blob: Blob) => new Blob([`png:${await blob.text()}`], { type: 'image/png' });

describe('buildEditForm', () => {
  it('sends every image as image[] in order, then the mask', async () => {
    const mask = new Blob(['mask'], { type: 'image/png' });
    const form = await buildEditForm(
      [ref('a', 'png'), ref('b', 'jpeg')],
      { prompt: 'p', n: 1 },
      mask,
      convert,
    );
    expect([...form.keys()]).toEqual(['prompt', 'n', 'image[]', 'image[]', 'mask']);
    const images = form.getAll('image[]') as File[];
    expect(images.map((f) => f.name)).toEqual(['image-1.png', 'image-2.jpg']);
    // Only the masked first image has to match the mask's format.
    expect(await images[1]!.text()).toBe('b');
    expect((form.get('mask') as File).name).toBe('mask.png');
  });

  it('converts a JPEG first image to PNG when a mask goes with it', async () => {
    const mask = new Blob(['mask'], { type: 'image/png' });
    const form = await buildEditForm([ref('photo', 'jpeg')], {}, mask, convert);
    const first = form.get('image[]') as File;
    expect(first.name).toBe('image-1.png');
    expect(await first.text()).toBe('png:photo');
  });

  it('leaves the first image as it is without a mask', async () => {
    const form = await buildEditForm([ref('photo', 'webp')], {}, null, convert);
    expect((form.get('image[]') as File).name).toBe('image-1.webp');
    expect(form.has('mask')).toBe(false);
  });
});
