import { useId, useState } from 'react';
import { usePromptHistory } from '../../stores/promptHistory';
import type { PromptDraft } from './composePrompt';
import './compose.css';

/** The prompts sent before (newest first), to pick one again: it replaces the words and fields. */
export function PromptHistory({ onPick }: { onPick: (draft: PromptDraft) => void }) {
  const prompts = usePromptHistory((s) => s.prompts);
  const [open, setOpen] = useState(false);
  const id = useId();
  if (prompts.length === 0) return null;
  return (
    <div className="prompt-history-anchor">
      <button
        type="button"
        className="link-button"
        aria-expanded={open}
        aria-controls={open ? id : undefined}
        onClick={() => setOpen((o) => !o)}
        data-testid="prompt-history-button"
      >
        History ({prompts.length})
      </button>
      {open && (
        <ul
          id={id}
          className="prompt-history"
          aria-label="Prompts sent before"
          data-testid="prompt-history"
          onKeyDown={(e) => {
            if (e.key === 'Escape') setOpen(false);
          }}
        >
          {prompts.map((p) => (
            <li key={p.prompt}>
              <button
                type="button"
                className="prompt-history-item"
                title={p.prompt}
                onClick={() => {
                  onPick(p.draft);
                  setOpen(false);
                }}
                data-testid="prompt-history-item"
              >
                {p.prompt}
              </button>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
