import { useId } from 'react';
import { describedBy } from '../../components/fields';
import { useEditStore } from '../../stores/edit';

/** "What should change?": the edit's prompt, with its problem once a send was tried. */
export function EditPromptField({ problem, tried }: { problem: string | null; tried: boolean }) {
  const prompt = useEditStore((s) => s.prompt);
  const setPrompt = useEditStore((s) => s.setPrompt);
  const id = useId();
  const shown = tried ? problem : null;
  return (
    <div className={`field ${shown ? 'field-invalid' : ''}`}>
      <label htmlFor={id}>What should change?</label>
      <textarea
        id={id}
        rows={3}
        value={prompt}
        placeholder="Replace the sky with a starry night"
        onChange={(e) => setPrompt(e.target.value)}
        aria-invalid={shown ? true : undefined}
        aria-describedby={describedBy(id, null, shown)}
        data-testid="edit-prompt"
      />
      <p className="field-error" id={`${id}-error`} aria-live="polite">
        {shown ?? ''}
      </p>
    </div>
  );
}
