import { useId } from 'react';
import {
  CheckboxField,
  describedBy,
  FieldShell,
  RangeField,
  Segmented,
  SelectField,
} from '../../components/fields';
import { LIMITS } from '../../../shared/imageParams';
import { describeModel, IMAGE_MODELS } from '../../../shared/models';
import { CustomSizeField } from './CustomSizeField';
import type { ImageParams, ParamCheck, ParamField, SizeChoice } from './params';
import { SIZE_CHOICES } from './params';
import './compose.css';

interface ParamsPanelProps {
  params: ImageParams;
  check: ParamCheck;
  onChange: (patch: Partial<ImageParams>) => void;
  /** A 400 from the gateway names a param: show its message at that control. */
  serverError?: { param: string | null; message: string } | null;
  /** Edit: `auto` keeps the first image's size. */
  autoHint?: string;
  /**
   * Narrow windows (Generate): everything past Size, Number of images and Quality folds into a
   * drawer, so the request column stays narrow and the picture keeps the width. Undefined: all
   * shown, no drawer.
   */
  folded?: boolean;
}

function sizeLabel(choice: SizeChoice): string {
  if (choice === 'auto') return 'Auto';
  if (choice === 'custom') return 'Custom…';
  const [w, h] = choice.split('x').map(Number) as [number, number];
  const shape = w === h ? 'square' : w > h ? 'landscape' : 'portrait';
  const tag = w * h > 2560 * 1440 ? ', experimental' : '';
  return `${w} × ${h} (${w >= 3840 || h >= 3840 ? '4K ' : ''}${shape}${tag})`;
}

const SIZE_OPTIONS = SIZE_CHOICES.map((value) => ({ value, label: sizeLabel(value) }));
const QUALITY_OPTIONS = [
  { value: 'low', label: 'Low' },
  { value: 'medium', label: 'Medium' },
  { value: 'high', label: 'High' },
  { value: 'auto', label: 'Auto' },
] as const;
const FORMAT_OPTIONS = [
  { value: 'png', label: 'PNG' },
  { value: 'jpeg', label: 'JPEG' },
  { value: 'webp', label: 'WebP' },
] as const;
const BACKGROUND_OPTIONS = [
  { value: 'auto', label: 'Auto' },
  { value: 'opaque', label: 'Opaque' },
] as const;
const MODERATION_OPTIONS = [
  { value: 'auto', label: 'Auto' },
  { value: 'low', label: 'Low' },
] as const;
const PARTIAL_OPTIONS = (['0', '1', '2', '3'] as const).map((value) => ({ value, label: value }));

/** Every image parameter of spec 4.1 with live validation. Used by Generate and Edit. */
export function ParamsPanel({
  params,
  check,
  onChange,
  serverError,
  autoHint,
  folded,
}: ParamsPanelProps) {
  const errorFor = (field: ParamField): string | undefined =>
    check.issues[field] ?? (serverError?.param === field ? serverError.message : undefined);

  // What most runs change: the size, how many, how good. Beside each other, at the top.
  const main = (
    <>
      <div className="params-row params-row-size">
        <SelectField
          label="Size"
          value={params.size}
          options={SIZE_OPTIONS}
          onChange={(size) => onChange({ size })}
          hint={params.size === 'auto' ? (autoHint ?? 'The model picks the size.') : undefined}
          error={params.size === 'custom' ? undefined : errorFor('size')}
          testId="param-size"
        />
        <ImageCount params={params} onChange={onChange} error={errorFor('n')} />
      </div>
      {params.size === 'custom' && (
        <CustomSizeField
          params={params}
          check={check}
          onChange={onChange}
          error={errorFor('size')}
        />
      )}
      {check.warnings.map((w) => (
        <p key={w} className="field-warning" data-testid="param-warning">
          {w}
        </p>
      ))}
      <Segmented
        label="Quality"
        value={params.quality}
        options={QUALITY_OPTIONS}
        onChange={(quality) => onChange({ quality })}
        hint="Low for drafts, medium for most work, high for finals (slower and costlier)."
        testId="param-quality"
      />
    </>
  );
  const more = (
    <>
      <SelectField
        label="Model"
        value={params.model}
        options={IMAGE_MODELS.map((m) => ({ value: m, label: m }))}
        onChange={(model) => onChange({ model })}
        hint={describeModel(params.model)}
        error={errorFor('model')}
        testId="param-model"
      />
      <Segmented
        label="Output format"
        value={params.outputFormat}
        options={FORMAT_OPTIONS}
        onChange={(outputFormat) => onChange({ outputFormat })}
        testId="param-format"
      />
      <RangeField
        label="Compression"
        value={params.compression}
        min={LIMITS.compressionMin}
        max={LIMITS.compressionMax}
        display={params.outputFormat === 'png' ? 'not used' : `${params.compression}`}
        onChange={(compression) => onChange({ compression })}
        disabled={params.outputFormat === 'png'}
        hint={
          params.outputFormat === 'png'
            ? 'PNG is lossless, so compression applies to JPEG and WebP only.'
            : '100 keeps the most detail; lower makes smaller files.'
        }
        error={errorFor('output_compression')}
        testId="param-compression"
      />
      <Segmented
        label="Background"
        value={params.background}
        options={BACKGROUND_OPTIONS}
        onChange={(background) => onChange({ background })}
        hint="No transparent option: this model does not support transparent backgrounds, and the gateway refuses them."
        testId="param-background"
      />
      <Segmented
        label="Filter strictness"
        value={params.moderation}
        options={MODERATION_OPTIONS}
        onChange={(moderation) => onChange({ moderation })}
        hint="Moderation: low makes the filter less strict; the content policy still applies."
        testId="param-moderation"
      />
      <div className="params-row">
        <CheckboxField
          label="Stream previews"
          checked={params.stream}
          onChange={(stream) => onChange({ stream })}
          testId="param-stream"
        />
      </div>
      <Segmented
        label="Previews per image"
        value={String(params.partialImages) as '0' | '1' | '2' | '3'}
        options={PARTIAL_OPTIONS}
        onChange={(value) => onChange({ partialImages: Number(value) })}
        disabled={!params.stream}
        hint={
          params.stream
            ? 'Partial images: previews while the image is made; each adds 100 output tokens.'
            : 'Previews (partial images) need streaming.'
        }
        testId="param-partials"
      />
      {errorFor('partial_images') && <p className="field-error">{errorFor('partial_images')}</p>}
      {errorFor('background') && <p className="field-error">{errorFor('background')}</p>}
    </>
  );
  // A refusal naming a folded parameter opens the drawer: the message shows at its control.
  const folds: ParamField[] = [
    'model',
    'output_format',
    'output_compression',
    'background',
    'moderation',
    'partial_images',
  ];
  const moreError = folds.some((field) => errorFor(field) !== undefined);

  return (
    <div className="params" data-testid="params">
      {main}
      {folded ? (
        <details className="params-more" open={moreError || undefined} data-testid="params-more">
          <summary data-testid="params-more-toggle">
            More: {params.model}, {params.outputFormat.toUpperCase()}
            {params.stream ? `, ${params.partialImages} previews` : ', no previews'}
          </summary>
          <div className="params">{more}</div>
        </details>
      ) : (
        more
      )}
    </div>
  );
}

function ImageCount({
  params,
  onChange,
  error,
}: {
  params: ImageParams;
  onChange: (patch: Partial<ImageParams>) => void;
  error: string | undefined;
}) {
  const id = useId();
  const hint = 'Each is its own call, priced as one alone.';
  return (
    <FieldShell id={id} label="Number of images" hint={hint} error={error} className="field-count">
      <div className="stepper">
        <button
          type="button"
          aria-label="One image fewer"
          disabled={params.n <= LIMITS.nMin}
          onClick={() => onChange({ n: Math.max(LIMITS.nMin, params.n - 1) })}
        >
          −
        </button>
        <input
          id={id}
          type="number"
          min={LIMITS.nMin}
          max={LIMITS.nMax}
          value={Number.isFinite(params.n) ? params.n : ''}
          onChange={(e) => onChange({ n: e.target.value === '' ? NaN : Number(e.target.value) })}
          aria-invalid={error ? true : undefined}
          aria-describedby={describedBy(id, hint, error)}
          data-testid="param-n"
        />
        <button
          type="button"
          aria-label="One image more"
          disabled={params.n >= LIMITS.nMax}
          onClick={() => onChange({ n: Math.min(LIMITS.nMax, (params.n || 0) + 1) })}
        >
          +
        </button>
      </div>
    </FieldShell>
  );
}
