import { useId, type ReactNode } from 'react';
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
  /** Beside the prompt's label: the history of sent prompts. */
  history?: ReactNode;
}

/** The prompt: free text, optional structure fields, and the prompt they compose. */
export function PromptComposer({
  draft,
  onChange,
  structured,
  onStructuredChange,
  error,
  history,
}: PromptComposerProps) {
  const id = useId();
  const composed = composePrompt(draft);
  const hint = 'Ctrl+Enter (⌘Enter on a Mac) sends.';
  const inUse = STRUCTURE_FIELDS.filter(({ key }) => draft[key].trim() !== '');
  const clearAll = () => onChange(Object.fromEntries(inUse.map(({ key }) => [key, ''])));
  return (
    <div className="composer">
      <div className={`field ${error ? 'field-invalid' : ''}`}>
        <div className="prompt-label-row">
          <label htmlFor={id}>Prompt</label>
          {history}
        </div>
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
          {structured && inUse.length > 0 && (
            <button
              type="button"
              className="link-button structure-clear-all"
              onClick={clearAll}
              data-testid="structure-clear-all"
            >
              Clear all structure fields
            </button>
          )}
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
      {/* Folded fields in use stay in sight, each with its clear: a collapsed field must not add
          an old subject to a new prompt unseen. */}
      {!structured && inUse.length > 0 && (
        <div className="structure-in-use" data-testid="structure-in-use">
          <ul className="structure-chips">
            {inUse.map(({ key, label }) => (
              <li
                key={key}
                className="structure-chip"
                data-testid="structure-chip"
                data-field={key}
              >
                <span className="structure-chip-text" title={draft[key]}>
                  <strong>{label}:</strong> {draft[key]}
                </span>
                <button
                  type="button"
                  className="icon-button"
                  aria-label={`Clear ${label.toLowerCase()}`}
                  onClick={() => onChange({ [key]: '' })}
                  data-testid="structure-clear"
                >
                  ×
                </button>
              </li>
            ))}
          </ul>
          <button
            type="button"
            className="link-button structure-clear-all"
            onClick={clearAll}
            data-testid="structure-clear-all"
          >
            Clear all
          </button>
        </div>
      )}

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
