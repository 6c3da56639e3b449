import { useId, useState } from 'react';
import { usePresetsStore } from '../../stores/presets';
import type { PromptDraft } from './composePrompt';
import type { ImageParams } from './params';

interface PresetBarProps {
  draft: PromptDraft;
  params: ImageParams;
  onApply: (draft: PromptDraft, params: ImageParams) => void;
}

/** Saved prompt and parameter sets, kept in this browser. */
export function PresetBar({ draft, params, onApply }: PresetBarProps) {
  const presets = usePresetsStore((s) => s.presets);
  const save = usePresetsStore((s) => s.save);
  const remove = usePresetsStore((s) => s.remove);
  const [selected, setSelected] = useState('');
  const [naming, setNaming] = useState(false);
  const [name, setName] = useState('');
  const id = useId();
  const current = presets.find((p) => p.id === selected) ?? null;

  const commit = () => {
    if (!name.trim()) return;
    const preset = save(name, draft, params);
    setSelected(preset.id);
    setNaming(false);
    setName('');
  };

  return (
    <div className="preset-bar" data-testid="presets">
      {naming ? (
        // Not a <form>: this bar sits inside the Generate form, and a nested form's submit
        // escaped React and reloaded the page (losing the preset and any run in progress).
        <div className="preset-form" role="group" aria-label="Save as preset">
          <label htmlFor={`${id}-name`} className="visually-hidden">
            Preset name
          </label>
          <input
            id={`${id}-name`}
            value={name}
            autoFocus
            placeholder="Preset name"
            onChange={(e) => setName(e.target.value)}
            onKeyDown={(e) => {
              // Enter saves the preset; it must not also submit (and pay for) the generation.
              if (e.key === 'Enter' && !e.ctrlKey && !e.metaKey) {
                e.preventDefault();
                commit();
              }
              if (e.key === 'Escape') setNaming(false);
            }}
            data-testid="preset-name"
          />
          <button type="button" onClick={commit} disabled={!name.trim()} data-testid="preset-save">
            Save
          </button>
          <button type="button" onClick={() => setNaming(false)}>
            Cancel
          </button>
        </div>
      ) : (
        <>
          <label htmlFor={`${id}-select`} className="visually-hidden">
            Preset
          </label>
          <select
            id={`${id}-select`}
            value={selected}
            onChange={(e) => {
              setSelected(e.target.value);
              const preset = presets.find((p) => p.id === e.target.value);
              if (preset) onApply(preset.draft, preset.params);
            }}
            data-testid="preset-select"
          >
            <option value="">{presets.length ? 'Presets…' : 'No presets yet'}</option>
            {presets.map((p) => (
              <option key={p.id} value={p.id}>
                {p.name}
              </option>
            ))}
          </select>
          <button
            type="button"
            onClick={() => {
              setName(current?.name ?? '');
              setNaming(true);
            }}
            data-testid="preset-new"
          >
            Save as preset
          </button>
          {current && (
            <button
              type="button"
              className="subtle"
              aria-label={`Delete preset ${current.name}`}
              onClick={() => {
                remove(current.id);
                setSelected('');
              }}
              data-testid="preset-delete"
            >
              Delete
            </button>
          )}
        </>
      )}
    </div>
  );
}
