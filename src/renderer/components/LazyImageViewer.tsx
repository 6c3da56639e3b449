import { lazy, Suspense, type ComponentProps } from 'react';

const Viewer = lazy(() => import('./ImageViewer').then((m) => ({ default: m.ImageViewer })));

/** The viewer loads with its first use (its own chunk), not with the studio. */
export function LazyImageViewer(props: ComponentProps<typeof Viewer>) {
  return (
    <Suspense fallback={null}>
      <Viewer {...props} />
    </Suspense>
  );
}
