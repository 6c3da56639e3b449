import { useState } from 'react';
import { Segmented } from '../../components/fields';

interface CompareViewProps {
  beforeUrl: string;
  afterUrl: string;
  label: string;
}

const MODES = [
  { value: 'side', label: 'Side by side' },
  { value: 'toggle', label: 'Before / after' },
] as const;

/** The source and a result: beside each other, or in one frame with a before/after switch. */
export function CompareView({ beforeUrl, afterUrl, label }: CompareViewProps) {
  const [mode, setMode] = useState<'side' | 'toggle'>('side');
  const [showBefore, setShowBefore] = useState(false);
  return (
    <section
      className="compare"
      aria-label={`Compare ${label}`}
      data-testid="compare"
      data-mode={mode}
    >
      <div className="compare-bar">
        <Segmented
          label="Compare"
          value={mode}
          options={MODES}
          onChange={setMode}
          hideLabel
          testId="compare-mode"
        />
        {mode === 'toggle' && (
          <button
            type="button"
            aria-pressed={showBefore}
            onClick={() => setShowBefore(!showBefore)}
            data-testid="compare-toggle"
          >
            {showBefore ? 'Showing before: show after' : 'Showing after: show before'}
          </button>
        )}
      </div>
      {mode === 'side' ? (
        <div className="compare-side">
          <figure>
            <img src={beforeUrl} alt="Before: the source image" data-testid="compare-before" />
            <figcaption>Before</figcaption>
          </figure>
          <figure>
            <img src={afterUrl} alt={`After: ${label}`} data-testid="compare-after" />
            <figcaption>After</figcaption>
          </figure>
        </div>
      ) : (
        <figure className="compare-single">
          <img
            src={showBefore ? beforeUrl : afterUrl}
            alt={showBefore ? 'Before: the source image' : `After: ${label}`}
            data-testid={showBefore ? 'compare-before' : 'compare-after'}
          />
          <figcaption>{showBefore ? 'Before' : 'After'}</figcaption>
        </figure>
      )}
    </section>
  );
}
