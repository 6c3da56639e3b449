import { CopyButton } from './CopyButton';

interface CodeBlockProps {
  /** Names the snippet for screen readers and the copy button. */
  label: string;
  code: string;
}

export function CodeBlock({ label, code }: CodeBlockProps) {
  return (
    <figure className="code-block">
      <figcaption>
        <span>{label}</span>
        <CopyButton text={code} label={`Copy ${label.toLowerCase()}`} />
      </figcaption>
      <pre aria-label={label} tabIndex={0}>
        <code>{code}</code>
      </pre>
    </figure>
  );
}
