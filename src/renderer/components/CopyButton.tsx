import { useEffect, useState } from 'react';
import { copyText } from '../lib/clipboard';

interface CopyButtonProps {
  text: string;
  /** Spoken name, e.g. "Copy gateway address". */
  label: string;
}

type Outcome = 'idle' | 'copied' | 'failed';

export function CopyButton({ text, label }: CopyButtonProps) {
  const [outcome, setOutcome] = useState<Outcome>('idle');

  useEffect(() => {
    if (outcome === 'idle') return;
    const timer = setTimeout(() => setOutcome('idle'), 2000);
    return () => clearTimeout(timer);
  }, [outcome]);

  const copy = async () => setOutcome((await copyText(text)) ? 'copied' : 'failed');

  return (
    <>
      <button type="button" className="copy" aria-label={label} onClick={() => void copy()}>
        {outcome === 'copied' ? 'Copied' : 'Copy'}
      </button>
      <span className="visually-hidden" aria-live="polite">
        {outcome === 'copied' ? 'Copied to clipboard' : ''}
        {outcome === 'failed' ? 'Could not copy; select the text and copy it yourself' : ''}
      </span>
    </>
  );
}
