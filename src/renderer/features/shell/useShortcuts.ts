import { useEffect, useEffectEvent } from 'react';
import { isTypingTarget, ShortcutMatcher, type ShortcutId } from '../../lib/shortcuts';

export type ShortcutHandlers = Partial<Record<ShortcutId, (event: KeyboardEvent) => void>>;

interface Registration {
  ids: ReadonlySet<ShortcutId>;
  run: (id: ShortcutId, event: KeyboardEvent) => void;
}

/**
 * One keydown listener for every mounted component's shortcuts, so a sequence started by one
 * (G, then E: go to Edit) is not also taken by another (E: eraser). The latest registration
 * that handles a shortcut wins (a page over the shell).
 */
const registrations = new Set<Registration>();
let matcher: ShortcutMatcher | null = null;

function onKeyDown(event: KeyboardEvent): void {
  if (event.defaultPrevented || event.isComposing) return;
  matcher ??= new ShortcutMatcher(new Set([...registrations].flatMap((r) => [...r.ids])));
  const id = matcher.match(event, isTypingTarget(event.target));
  if (!id) return;
  // Page shortcuts pause while a modal dialog is open; the help key still closes the help.
  if (id !== 'help' && document.querySelector('dialog[open]')) return;
  const owner = [...registrations].reverse().find((r) => r.ids.has(id));
  if (!owner) return;
  event.preventDefault();
  owner.run(id, event);
}

function register(registration: Registration): () => void {
  registrations.add(registration);
  matcher = null;
  if (registrations.size === 1) window.addEventListener('keydown', onKeyDown);
  return () => {
    registrations.delete(registration);
    matcher = null;
    if (registrations.size === 0) window.removeEventListener('keydown', onKeyDown);
  };
}

/**
 * Runs `handlers` on their shortcuts (lib/shortcuts.ts) while the calling component is mounted.
 * Plain keys are left alone while a text field has focus.
 */
export function useShortcuts(handlers: ShortcutHandlers, enabled = true): void {
  const ids = Object.keys(handlers).sort().join(' ');
  const run = useEffectEvent((id: ShortcutId, event: KeyboardEvent) => handlers[id]?.(event));

  useEffect(() => {
    if (!enabled || ids === '') return;
    return register({
      ids: new Set(ids.split(' ') as ShortcutId[]),
      run: (id, event) => run(id, event),
    });
  }, [ids, enabled]);
}
