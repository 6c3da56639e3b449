import type { ViewerItem } from '../../components/ImageViewer';
import { LazyImageViewer as ImageViewer } from '../../components/LazyImageViewer';
import type { ImageSlot } from '../../stores/run';

interface ResultsViewerProps {
  slots: ImageSlot[];
  /** The slot index first in view. */
  index: number;
  onIndex: (slotIndex: number) => void;
  onClose: () => void;
  /** Edit: the image the results were made from, to wipe or difference against. */
  source?: ViewerItem | null;
}

/** A run's finished images in the full-window viewer (Generate and Edit). */
export function ResultsViewer({ slots, index, onIndex, onClose, source }: ResultsViewerProps) {
  const done = slots.filter((s) => s.state === 'done' && s.url);
  const items: ViewerItem[] = done.map((s) => ({
    key: `result-${s.index}`,
    url: s.url!,
    label: `Result ${s.index + 1}`,
  }));
  const at = Math.max(
    0,
    done.findIndex((s) => s.index === index),
  );
  if (items.length === 0) return null;
  return (
    <ImageViewer
      items={items}
      index={at}
      onIndex={(i) => onIndex(done[i]?.index ?? 0)}
      onClose={onClose}
      against={source ? [source, ...items] : items}
      initialAgainst={source?.key ?? null}
    />
  );
}
