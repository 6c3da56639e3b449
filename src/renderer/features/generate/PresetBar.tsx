import { useCallback, useEffect, useId, useMemo, useRef, useState } from 'react';
import { menuPresets, usePresetsStore, type RemovedPreset } from '../../stores/presets';
import { withPreset, type PromptDraft } from './composePrompt';
import type { ImageParams } from './params';
import { PresetMenu } from './PresetMenu';
import './compose.css';

interface PresetBarProps {
  draft: PromptDraft;
  params: ImageParams;
  onApply: (draft: PromptDraft, params: ImageParams) => void;
}

/** How long a deleted preset can be brought back. */
export const UNDO_MS = 10_000;

/**
 * Saved prompt and parameter sets, kept in this browser, beside the starters the studio ships.
 * Applying one adds its look to what the artist wrote (`withPreset`), with Undo.
 */
export function PresetBar({ draft, params, onApply }: PresetBarProps) {
  const own = usePresetsStore((s) => s.presets);
  const hiddenStarters = usePresetsStore((s) => s.hiddenStarters);
  const save = usePresetsStore((s) => s.save);
  const remove = usePresetsStore((s) => s.remove);
  const restore = usePresetsStore((s) => s.restore);
  const showStarters = usePresetsStore((s) => s.showStarters);
  const presets = useMemo(
    () => menuPresets({ presets: own, hiddenStarters }),
    [own, hiddenStarters],
  );
  const [selected, setSelected] = useState('');
  const [menuOpen, setMenuOpen] = useState(false);
  const [naming, setNaming] = useState(false);
  const [name, setName] = useState('');
  const [removed, setRemoved] = useState<RemovedPreset | null>(null);
  /** The last apply, with what was there before it, for its Undo. */
  const [applied, setApplied] = useState<{
    name: string;
    before: { draft: PromptDraft; params: ImageParams; selected: string };
  } | null>(null);
  const trigger = useRef<HTMLButtonElement>(null);
  const id = useId();
  const current = presets.find((p) => p.id === selected) ?? null;

  // The Undo offer lasts a while, then the delete is final; a second delete starts it again.
  useEffect(() => {
    if (!removed) return;
    const timer = setTimeout(() => setRemoved(null), UNDO_MS);
    return () => clearTimeout(timer);
  }, [removed]);

  useEffect(() => {
    if (!applied) return;
    const timer = setTimeout(() => setApplied(null), UNDO_MS);
    return () => clearTimeout(timer);
  }, [applied]);

  const commit = () => {
    if (!name.trim()) return;
    const preset = save(name, draft, params);
    setSelected(preset.id);
    setNaming(false);
    setName('');
  };

  const closeMenu = useCallback(() => {
    setMenuOpen(false);
    trigger.current?.focus();
  }, []);

  // In the open menu it sits at the menu's foot (where the rows above it do not move), else under
  // the bar: either way where the person just deleted.
  const undoNotice = removed && (
    <div className="notice notice-info preset-undo" role="status" data-testid="preset-undo-notice">
      <span>
        {removed.kind === 'starter' ? 'Hid the starter preset' : 'Deleted the preset'}{' '}
        <strong>{removed.preset.name}</strong>.
      </span>
      <button
        type="button"
        onClick={() => {
          restore(removed);
          setRemoved(null);
        }}
        data-testid="preset-undo"
      >
        Undo
      </button>
    </div>
  );

  // Every apply can be undone: the words and parameters come back as they were before it.
  const appliedNotice = applied && (
    <div className="notice notice-info preset-undo" role="status" data-testid="preset-applied">
      <span>
        Applied <strong>{applied.name}</strong>: its look is added to your words.
      </span>
      <button
        type="button"
        onClick={() => {
          onApply(applied.before.draft, applied.before.params);
          setSelected(applied.before.selected);
          setApplied(null);
        }}
        data-testid="preset-applied-undo"
      >
        Undo
      </button>
    </div>
  );

  return (
    <div className="preset-area">
      <div className="preset-anchor">
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
              <button
                type="button"
                onClick={commit}
                disabled={!name.trim()}
                data-testid="preset-save"
              >
                Save
              </button>
              <button type="button" onClick={() => setNaming(false)}>
                Cancel
              </button>
            </div>
          ) : (
            <>
              <button
                ref={trigger}
                type="button"
                className="preset-trigger"
                aria-haspopup="true"
                aria-expanded={menuOpen}
                aria-controls={menuOpen ? `${id}-menu` : undefined}
                title={current?.name}
                onClick={() => setMenuOpen((open) => !open)}
                data-testid="preset-menu-button"
              >
                <span className="preset-trigger-label" data-testid="preset-current">
                  {current ? current.name : presets.length ? 'Presets…' : 'No presets yet'}
                </span>
                {current?.starter && <span className="badge badge-neutral">Starter</span>}
                <span aria-hidden="true">▾</span>
              </button>
              <button
                type="button"
                onClick={() => {
                  setName(current && !current.starter ? current.name : '');
                  setNaming(true);
                  setMenuOpen(false);
                }}
                data-testid="preset-new"
              >
                Save as preset
              </button>
            </>
          )}
        </div>
        {menuOpen && !naming && (
          <PresetMenu
            id={`${id}-menu`}
            presets={presets}
            selected={selected}
            hiddenStarters={hiddenStarters.length}
            onApply={(preset) => {
              setApplied({ name: preset.name, before: { draft, params, selected } });
              setSelected(preset.id);
              onApply(withPreset(draft, preset.draft), preset.params);
              closeMenu();
            }}
            onRemove={(preset) => {
              const gone = remove(preset.id);
              if (gone) setRemoved(gone);
              if (selected === preset.id) setSelected('');
            }}
            onShowStarters={showStarters}
            footer={undoNotice}
            onClose={closeMenu}
            trigger={trigger}
          />
        )}
      </div>
      {!menuOpen && undoNotice}
      {!menuOpen && appliedNotice}
    </div>
  );
}
