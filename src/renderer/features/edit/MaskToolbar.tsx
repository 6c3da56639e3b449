import { useRef, useState } from 'react';
import { RangeField, Segmented } from '../../components/fields';
import { formatCombo, isMacPlatform } from '../../lib/shortcuts';
import { BRUSH_MAX, BRUSH_MIN, useMaskStore, type CanvasTool } from '../../stores/mask';
import { ImageFileError, readRgba } from './imageFiles';
import type { PressureUse } from './mask/maskDocument';
import { coverageFromRgba, FEATHER_MAX } from './mask/maskPixels';
import type { SelectionMode } from './mask/selection';

const TOOLS = [
  { value: 'brush', label: 'Brush' },
  { value: 'eraser', label: 'Eraser' },
  { value: 'rect', label: 'Rectangle' },
  { value: 'lasso', label: 'Lasso' },
] as const satisfies ReadonlyArray<{ value: CanvasTool; label: string }>;

const MODES = [
  { value: 'add', label: 'Add' },
  { value: 'cut', label: 'Cut' },
] as const satisfies ReadonlyArray<{ value: SelectionMode; label: string }>;

const PRESSURE = [
  { value: 'size', label: 'Size' },
  { value: 'opacity', label: 'Strength' },
  { value: 'off', label: 'Off' },
] as const satisfies ReadonlyArray<{ value: PressureUse; label: string }>;

/**
 * Brush, eraser, rectangle and lasso (adding or cutting), size, pen pressure, feather,
 * undo/redo, invert, clear, the overlay and its colour, and loading a mask file.
 */
export function MaskToolbar() {
  const tool = useMaskStore((s) => s.tool);
  const selectionMode = useMaskStore((s) => s.selectionMode);
  const pressure = useMaskStore((s) => s.pressure);
  const tint = useMaskStore((s) => s.tint);
  const brushSize = useMaskStore((s) => s.brushSize);
  const feather = useMaskStore((s) => s.feather);
  const overlay = useMaskStore((s) => s.overlay);
  const canUndo = useMaskStore((s) => s.canUndo);
  const canRedo = useMaskStore((s) => s.canRedo);
  const empty = useMaskStore((s) => s.empty);
  const doc = useMaskStore((s) => s.doc);
  const actions = useMaskStore.getState;
  const fileRef = useRef<HTMLInputElement>(null);
  /** A refused mask file, about the image it was loaded for (another image starts clean). */
  const [refusal, setRefusal] = useState<{ doc: unknown; message: string } | null>(null);
  const loadError = refusal?.doc === doc ? refusal.message : null;
  const mac = isMacPlatform();

  const loadMask = async (file: File) => {
    setRefusal(null);
    if (!doc) return;
    try {
      const rgba = await readRgba(file, doc.width, doc.height, file.name);
      const coverage = coverageFromRgba(rgba);
      if (!coverage.some((v) => v > 0)) {
        throw new ImageFileError(
          `${file.name} has no transparent pixels, so it marks nothing to change (transparent = change)`,
        );
      }
      actions().load(coverage);
    } catch (error) {
      setRefusal({ doc, message: error instanceof Error ? error.message : String(error) });
    }
  };

  return (
    <div className="mask-toolbar" role="toolbar" aria-label="Mask tools" data-testid="mask-toolbar">
      <Segmented
        label="Tool"
        value={tool}
        options={TOOLS}
        onChange={(t) => actions().setTool(t)}
        testId="mask-tool"
        hideLabel
      />
      {(tool === 'rect' || tool === 'lasso') && (
        <Segmented
          label="Selection adds to the change or cuts from it"
          value={selectionMode}
          options={MODES}
          onChange={(m) => actions().setSelectionMode(m)}
          testId="selection-mode"
          hideLabel
        />
      )}
      <RangeField
        label="Brush"
        value={brushSize}
        min={BRUSH_MIN}
        max={BRUSH_MAX}
        display={`${brushSize} px`}
        onChange={(v) => actions().setBrushSize(v)}
        testId="brush-size"
      />
      <RangeField
        label="Feather"
        value={feather}
        min={0}
        max={FEATHER_MAX}
        display={feather === 0 ? 'off' : `${feather} px`}
        onChange={(v) => actions().setFeather(v)}
        testId="feather"
      />
      <div className="tool-buttons">
        <button
          type="button"
          onClick={() => actions().undo()}
          disabled={!canUndo}
          title={formatCombo('mod+z', mac)}
          data-testid="mask-undo"
        >
          Undo
        </button>
        <button
          type="button"
          onClick={() => actions().redo()}
          disabled={!canRedo}
          title={formatCombo('mod+shift+z', mac)}
          data-testid="mask-redo"
        >
          Redo
        </button>
        <button
          type="button"
          onClick={() => actions().invert()}
          disabled={!doc}
          title="I"
          data-testid="mask-invert"
        >
          Invert
        </button>
        <button
          type="button"
          onClick={() => actions().clear()}
          disabled={empty}
          data-testid="mask-clear"
        >
          Clear
        </button>
        <button
          type="button"
          aria-pressed={overlay}
          onClick={() => actions().setOverlay(!overlay)}
          title="O"
          data-testid="mask-overlay"
        >
          Overlay
        </button>
        <select
          value={pressure}
          aria-label="Pen pressure changes"
          title="Pen pressure changes the brush's size, its strength, or nothing"
          onChange={(e) => actions().setPressure(e.target.value as PressureUse)}
          data-testid="pen-pressure"
        >
          {PRESSURE.map((o) => (
            <option key={o.value} value={o.value}>
              {o.label}
            </option>
          ))}
        </select>
        <input
          type="color"
          value={tint}
          aria-label="Overlay colour"
          title="Overlay colour: pick one that stands out from the picture"
          onChange={(e) => actions().setTint(e.target.value)}
          data-testid="overlay-colour"
        />
        <button
          type="button"
          onClick={() => fileRef.current?.click()}
          disabled={!doc}
          data-testid="mask-load"
        >
          Load mask…
        </button>
        <input
          ref={fileRef}
          type="file"
          accept="image/png,image/webp"
          hidden
          aria-label="Mask file (transparent = change)"
          data-testid="mask-file"
          onChange={(e) => {
            const file = e.target.files?.[0];
            e.target.value = '';
            if (file) void loadMask(file);
          }}
        />
      </div>
      {loadError && (
        <p className="field-error" role="alert" data-testid="mask-load-error">
          {loadError}
        </p>
      )}
    </div>
  );
}
