import { useState } from 'react';
import { Segmented } from '../../components/fields';

interface CompareViewProps {
  beforeUrl: string;
  afterUrl: string;
  label: string;
}

const MODES = [
  { value: 'wipe', label: 'Wipe' },
  { value: 'side', label: 'Side by side' },
  { value: 'toggle', label: 'Before / after' },
] as const;

type Mode = (typeof MODES)[number]['value'];

/**
 * The source and a result, at the size of the canvas: by default the result over its source
 * with a wipe (left of the line the source, right of it the result); or beside each other, or
 * in one frame with a before/after switch.
 */
export function CompareView({ beforeUrl, afterUrl, label }: CompareViewProps) {
  const [mode, setMode] = useState<Mode>('wipe');
  const [wipe, setWipe] = useState(50);
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
      {mode === 'wipe' ? (
        <figure className="compare-wipe" data-wipe={wipe}>
          <div className="compare-wipe-frame">
            {/* The result whole underneath, the source over it cut off at the line. */}
            <img src={afterUrl} alt={`After: ${label}`} data-testid="compare-after" />
            <img
              src={beforeUrl}
              alt="Before: the source image"
              style={{ clipPath: `inset(0 ${100 - wipe}% 0 0)` }}
              data-testid="compare-before"
            />
            <span className="compare-wipe-line" style={{ left: `${wipe}%` }} aria-hidden="true" />
          </div>
          <input
            type="range"
            min={0}
            max={100}
            value={wipe}
            onChange={(e) => setWipe(Number(e.target.value))}
            aria-label="Wipe: before on the left, after on the right"
            data-testid="compare-wipe"
          />
        </figure>
      ) : mode === 'side' ? (
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
