import { useEffect, useRef, type ReactNode, type RefObject } from 'react';
import type { MenuPreset } from '../../stores/presets';

interface PresetMenuProps {
  id: string;
  presets: MenuPreset[];
  selected: string;
  /** How many starters are hidden (offered back when any are). */
  hiddenStarters: number;
  onApply: (preset: MenuPreset) => void;
  onRemove: (preset: MenuPreset) => void;
  onShowStarters: () => void;
  /** Shown at the foot of the panel (the Undo of a delete made in it). */
  footer?: ReactNode;
  onClose: () => void;
  /** The button that opened the menu: a press on it toggles, it is not "outside". */
  trigger: RefObject<HTMLElement | null>;
}

/**
 * The preset list as a panel under the bar rather than a native <select>: a long name wraps
 * instead of being cut off, a starter says it is one, and each row has its own Delete (Hide for
 * a starter). Escape or a press outside closes it.
 */
export function PresetMenu(props: PresetMenuProps) {
  const { presets, selected, onApply, onRemove, onClose, trigger } = props;
  const panel = useRef<HTMLDivElement>(null);

  useEffect(() => {
    const onPointerDown = (e: PointerEvent) => {
      const target = e.target as Node;
      if (panel.current?.contains(target) || trigger.current?.contains(target)) return;
      onClose();
    };
    // On the document, not the panel: after "Show hidden starters" goes away, focus is on the body.
    const onKeyDown = (e: KeyboardEvent) => {
      if (e.key !== 'Escape') return;
      // Closing the menu is all this Escape does (it does not also cancel a run).
      e.preventDefault();
      e.stopPropagation();
      onClose();
    };
    document.addEventListener('pointerdown', onPointerDown);
    document.addEventListener('keydown', onKeyDown, true);
    return () => {
      document.removeEventListener('pointerdown', onPointerDown);
      document.removeEventListener('keydown', onKeyDown, true);
    };
  }, [onClose, trigger]);

  const own = presets.filter((p) => !p.starter);
  const starters = presets.filter((p) => p.starter);
  const row = (p: MenuPreset) => (
    <li key={p.id} data-testid="preset-item" data-starter={p.starter} data-name={p.name}>
      <button
        type="button"
        className="preset-apply"
        aria-current={p.id === selected ? 'true' : undefined}
        title={p.name}
        onClick={() => onApply(p)}
        data-testid="preset-apply"
      >
        {p.name}
      </button>
      <button
        type="button"
        className="subtle"
        aria-label={p.starter ? `Hide the starter preset ${p.name}` : `Delete preset ${p.name}`}
        title={
          p.starter
            ? 'Hide this starter (Undo or "Show hidden starters" brings it back)'
            : undefined
        }
        onClick={() => onRemove(p)}
        data-testid="preset-remove"
      >
        {p.starter ? 'Hide' : 'Delete'}
      </button>
    </li>
  );

  return (
    <div
      ref={panel}
      id={props.id}
      className="preset-menu"
      role="group"
      aria-label="Presets"
      data-testid="preset-menu"
    >
      {presets.length === 0 && <p className="muted">No presets yet: save the form as one.</p>}
      {own.length > 0 && (
        <section aria-label="Your presets">
          <h3 className="preset-group">Yours</h3>
          <ul>{own.map(row)}</ul>
        </section>
      )}
      {starters.length > 0 && (
        <section aria-label="Starter presets">
          <h3 className="preset-group">
            Starters <span className="muted">shipped with Atelier</span>
          </h3>
          <ul>{starters.map(row)}</ul>
        </section>
      )}
      {props.hiddenStarters > 0 && (
        <button
          type="button"
          className="subtle preset-show-starters"
          onClick={props.onShowStarters}
          data-testid="preset-show-starters"
        >
          Show hidden starters ({props.hiddenStarters})
        </button>
      )}
      {props.footer}
    </div>
  );
}
