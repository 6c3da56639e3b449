import { useState } from 'react';
import { useEditStore, type ReferenceImage } from '../../stores/edit';
import { exportFlattened, flattenLayers, layerStack, lookOf, showsTopOnly } from './layers';
import { toReference } from './references';

/**
 * The edit layers of the working image: each result over the step it came from, top first.
 * Hide one, blend it, revert to the step below (the chain branches from there), or flatten what
 * shows into one image to export or to edit on.
 */
export function LayerPanel({ source }: { source: ReferenceImage }) {
  const chain = useEditStore((s) => s.chain);
  const looks = useEditStore((s) => s.layerLooks);
  const edit = useEditStore.getState;
  const [problem, setProblem] = useState<string | null>(null);
  const stack = layerStack(chain, source);
  if (stack.length === 0) return null;
  const plain = showsTopOnly(stack, looks);

  const flatten = async (use: 'export' | 'edit') => {
    setProblem(null);
    try {
      if (use === 'export') {
        await exportFlattened(stack, looks);
        return;
      }
      const blob = await flattenLayers(stack, looks);
      edit().continueWith(await toReference(blob, 'flattened layers.png'), 'Flattened layers', {
        startsStack: true,
      });
    } catch (error) {
      setProblem(error instanceof Error ? error.message : String(error));
    }
  };

  return (
    <section className="layer-panel" aria-label="Edit layers" data-testid="layer-stack">
      <ol className="layer-list">
        {stack
          .map((step, i) => ({ step, i }))
          .reverse()
          .map(({ step, i }) => {
            const look = lookOf(looks, step.id);
            const label = i === 0 ? 'Source' : `Edit ${i}: ${step.prompt ?? ''}`;
            return (
              <li
                key={step.id}
                className="layer"
                data-testid="layer"
                data-step-id={step.id}
                data-hidden={look.hidden}
                data-opacity={look.opacity}
              >
                <img src={step.url} alt="" />
                <span
                  className="layer-name"
                  title={step.prompt ?? 'The image the edits start from'}
                >
                  {label}
                </span>
                {i > 0 && (
                  <>
                    <label className="layer-visible">
                      <input
                        type="checkbox"
                        checked={!look.hidden}
                        onChange={(e) =>
                          edit().setLayerLook(step.id, { hidden: !e.target.checked })
                        }
                        data-testid="layer-visible"
                      />
                      Show
                    </label>
                    <input
                      type="range"
                      min={0}
                      max={100}
                      value={Math.round(look.opacity * 100)}
                      aria-label={`Opacity of ${label}`}
                      onChange={(e) =>
                        edit().setLayerLook(step.id, { opacity: Number(e.target.value) / 100 })
                      }
                      data-testid="layer-opacity"
                    />
                    <button
                      type="button"
                      onClick={() => edit().branchFrom(stack[i - 1]!.id)}
                      title="Drop this edit and the ones above it; the chain goes on from the step below"
                      data-testid="layer-revert"
                    >
                      Revert
                    </button>
                  </>
                )}
              </li>
            );
          })}
      </ol>
      <div className="layer-actions">
        <button type="button" onClick={() => void flatten('export')} data-testid="layers-export">
          Export flattened
        </button>
        <button
          type="button"
          onClick={() => void flatten('edit')}
          disabled={plain}
          data-testid="layers-flatten"
        >
          Flatten to edit on
        </button>
        {!plain && (
          <span className="muted" data-testid="layers-note">
            The edit is sent on the top image: flatten to send what shows.
          </span>
        )}
      </div>
      {problem && (
        <p className="field-error" role="alert">
          {problem}
        </p>
      )}
    </section>
  );
}
