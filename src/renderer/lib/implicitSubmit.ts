interface EnterLike {
  key: string;
  ctrlKey: boolean;
  metaKey: boolean;
  target: EventTarget | null;
}

/** Input types that are not typed into: Enter on them does not submit a form anyway. */
const NOT_TYPED = new Set([
  'checkbox',
  'radio',
  'range',
  'button',
  'submit',
  'reset',
  'color',
  'file',
  'image',
]);

/**
 * Enter in a one-line field submits its form (the browser's implicit submission). On Generate
 * and Edit that would start a paid request from a key pressed to confirm a width or a count, so
 * those forms send only from their button or Ctrl/Cmd+Enter, and drop this one.
 */
export function isImplicitSubmit(event: EnterLike): boolean {
  if (event.key !== 'Enter' || event.ctrlKey || event.metaKey) return false;
  const target = event.target as { tagName?: unknown; type?: unknown } | null;
  if (!target || target.tagName !== 'INPUT') return false;
  return !NOT_TYPED.has(typeof target.type === 'string' ? target.type : 'text');
}
