import { expect, test } from '@playwright/test';
import { waitForGalleryPaint, type Paint } from './support/galleryPaint';
import { percentile, recordMetric } from './support/metrics';
import { open, ready } from './support/pages';
import { seedGallery } from './support/seedGallery';
import { useStudio } from './support/studio';

// The gallery's first paint for the benchmark report (issue 16: under 500 ms with 50,000
// images), recorded, not asserted against a clock. What is asserted is what makes it possible:
// a virtualised grid that holds a screenful of tiles whatever the gallery's size.
const GALLERY_SIZE = 50_000;
const studio = useStudio({ seed: (dataDir) => seedGallery(dataDir, GALLERY_SIZE) });

test('gallery first paint with 50,000 images', async () => {
  const { page, server } = studio;
  const runs: Paint[] = [];
  for (let i = 0; i < 4; i++) {
    await open(page, 'home');
    runs.push(await waitForGalleryPaint(page, 'now-click'));
    await ready(page, 'gallery');
  }
  // Virtualised: thousands of images, a screenful of tiles in the DOM.
  for (const run of runs) {
    expect(run.count).toBeGreaterThan(0);
    expect(run.rendered).toBeLessThan(150);
  }
  const warm = runs.slice(1).map((r) => r.painted);
  recordMetric(
    'gallery.firstPaint',
    {
      images: GALLERY_SIZE,
      coldCacheMs: runs[0]!.painted,
      warmMedianMs: percentile(warm, 50),
      firstTileMs: runs[0]!.firstTile,
      tilesInDom: runs[0]!.rendered,
      tilesInView: runs[0]!.visible,
    },
    'in-app navigation to /gallery until every thumbnail in view is loaded and painted',
  );

  await page.goto(`${server.url}/gallery`, { waitUntil: 'commit' });
  const cold = await waitForGalleryPaint(page, 'navigation');
  recordMetric(
    'gallery.pageLoad',
    { images: GALLERY_SIZE, paintedMs: cold.painted, firstTileMs: cold.firstTile },
    'full page load of /gallery (from navigation start) until the thumbnails in view are painted',
  );
  await studio.screenshot('gallery-50000');
});
