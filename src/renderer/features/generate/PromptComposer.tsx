import { useId } from 'react';
import { describedBy } from '../../components/fields';
import {
  composePrompt,
  hasStructure,
  MAX_PROMPT_CHARS,
  STRUCTURE_FIELDS,
  type PromptDraft,
} from './composePrompt';
import './compose.css';

interface PromptComposerProps {
  draft: PromptDraft;
  onChange: (patch: Partial<PromptDraft>) => void;
  structured: boolean;
  onStructuredChange: (open: boolean) => void;
  /** Shown after a send was refused. */
  error: string | null;
}

/** The prompt: free text, optional structure fields, and the prompt they compose. */
export function PromptComposer({
  draft,
  onChange,
  structured,
  onStructuredChange,
  error,
}: PromptComposerProps) {
  const id = useId();
  const composed = composePrompt(draft);
  const hint = 'Ctrl+Enter (⌘Enter on a Mac) sends.';
  return (
    <div className="composer">
      <div className={`field ${error ? 'field-invalid' : ''}`}>
        <label htmlFor={id}>Prompt</label>
        <textarea
          id={id}
          rows={4}
          value={draft.text}
          placeholder="A lighthouse keeper in a yellow coat on a rocky coast at dusk, watercolour"
          onChange={(e) => onChange({ text: e.target.value })}
          aria-invalid={error ? true : undefined}
          aria-describedby={describedBy(id, hint, error)}
          data-testid="prompt"
        />
        <p className="field-hint" id={`${id}-hint`}>
          {hint}
        </p>
        <p className="field-error" id={`${id}-error`} aria-live="polite">
          {error ?? ''}
        </p>
      </div>

      <details
        className="structure"
        open={structured}
        onToggle={(e) => onStructuredChange(e.currentTarget.open)}
      >
        <summary>
          Structure fields{' '}
          <span className="muted">
            {hasStructure(draft) ? '(in use)' : '(optional: subject, environment, camera…)'}
          </span>
        </summary>
        <div className="structure-grid">
          {STRUCTURE_FIELDS.map(({ key, label, hint: example }) => (
            <div className="field" key={key}>
              <label htmlFor={`${id}-${key}`}>{label}</label>
              {/* Multi-line and growing with its text: a field never hides what was typed. */}
              <textarea
                id={`${id}-${key}`}
                rows={1}
                className="grow-field"
                value={draft[key]}
                placeholder={example}
                onChange={(e) => onChange({ [key]: e.target.value })}
                data-testid={`prompt-${key}`}
              />
            </div>
          ))}
        </div>
      </details>

      {hasStructure(draft) && (
        <figure className="composed">
          <figcaption>
            Prompt sent{' '}
            <span className="muted">
              ({composed.length.toLocaleString('en-US')} /{' '}
              {MAX_PROMPT_CHARS.toLocaleString('en-US')} characters)
            </span>
          </figcaption>
          <pre data-testid="composed-prompt" tabIndex={0} aria-label="Composed prompt">
            {composed}
          </pre>
        </figure>
      )}
    </div>
  );
}
