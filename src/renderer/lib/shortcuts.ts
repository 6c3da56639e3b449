/**
 * Keyboard shortcuts: one table that both the key handlers and the help overlay read, so the
 * overlay can never list a shortcut that does not exist.
 */
export type ShortcutId =
  | 'help'
  | 'send'
  | 'cancel'
  | 'brush'
  | 'eraser'
  | 'selectRect'
  | 'selectLasso'
  | 'brushSmaller'
  | 'brushLarger'
  | 'undo'
  | 'redo'
  | 'invert'
  | 'overlay'
  | 'zoomIn'
  | 'zoomOut'
  | 'zoomFit'
  | 'zoomActual'
  | 'pan'
  | 'goHome'
  | 'goGenerate'
  | 'goEdit'
  | 'goGallery'
  | 'goUsage'
  | 'goKeys'
  | 'goAccounts'
  | 'goServer'
  | 'goSettings';

export type ShortcutGroup = 'Everywhere' | 'Generate and Edit' | 'Mask editor';

export interface ShortcutDef {
  id: ShortcutId;
  /**
   * Key combinations: `mod` is Ctrl, or Cmd on a Mac (either works everywhere); a space between
   * two keys is a sequence (`g e`: press G, then E).
   */
  combos: readonly string[];
  description: string;
  group: ShortcutGroup;
  /** Also fires while a text field has focus (only Ctrl/Cmd combinations should). */
  inTextFields?: boolean;
  /** Shown in the help, handled elsewhere (e.g. holding Space while dragging). */
  displayOnly?: boolean;
}

export const SHORTCUTS: readonly ShortcutDef[] = [
  { id: 'help', combos: ['?'], description: 'Show or hide this list', group: 'Everywhere' },
  { id: 'goHome', combos: ['g h'], description: 'Go to Home', group: 'Everywhere' },
  { id: 'goGenerate', combos: ['g g'], description: 'Go to Generate', group: 'Everywhere' },
  { id: 'goEdit', combos: ['g e'], description: 'Go to Edit', group: 'Everywhere' },
  { id: 'goGallery', combos: ['g l'], description: 'Go to Gallery', group: 'Everywhere' },
  { id: 'goUsage', combos: ['g u'], description: 'Go to Usage', group: 'Everywhere' },
  { id: 'goKeys', combos: ['g k'], description: 'Go to Keys', group: 'Everywhere' },
  { id: 'goAccounts', combos: ['g a'], description: 'Go to Accounts', group: 'Everywhere' },
  { id: 'goServer', combos: ['g v'], description: 'Go to Server', group: 'Everywhere' },
  { id: 'goSettings', combos: ['g s'], description: 'Go to Settings', group: 'Everywhere' },
  {
    id: 'send',
    combos: ['mod+enter'],
    description: 'Send the request',
    group: 'Generate and Edit',
    inTextFields: true,
  },
  {
    id: 'cancel',
    combos: ['escape'],
    description: 'Cancel the running request (the upstream work stops too)',
    group: 'Generate and Edit',
    inTextFields: true,
  },
  {
    id: 'brush',
    combos: ['b'],
    description: 'Brush: paint the area to change',
    group: 'Mask editor',
  },
  { id: 'eraser', combos: ['e'], description: 'Eraser: keep an area', group: 'Mask editor' },
  {
    id: 'selectRect',
    combos: ['m'],
    description: 'Rectangle selection (Alt-drag cuts)',
    group: 'Mask editor',
  },
  {
    id: 'selectLasso',
    combos: ['l'],
    description: 'Lasso selection (Alt-drag cuts)',
    group: 'Mask editor',
  },
  { id: 'brushSmaller', combos: ['['], description: 'Smaller brush', group: 'Mask editor' },
  { id: 'brushLarger', combos: [']'], description: 'Larger brush', group: 'Mask editor' },
  { id: 'undo', combos: ['mod+z'], description: 'Undo the last stroke', group: 'Mask editor' },
  {
    id: 'redo',
    combos: ['mod+shift+z', 'mod+y'],
    description: 'Redo',
    group: 'Mask editor',
  },
  { id: 'invert', combos: ['i'], description: 'Invert the mask', group: 'Mask editor' },
  { id: 'overlay', combos: ['o'], description: 'Show or hide the overlay', group: 'Mask editor' },
  { id: 'zoomIn', combos: ['+', '='], description: 'Zoom in', group: 'Mask editor' },
  { id: 'zoomOut', combos: ['-'], description: 'Zoom out', group: 'Mask editor' },
  { id: 'zoomFit', combos: ['0'], description: 'Fit the image', group: 'Mask editor' },
  { id: 'zoomActual', combos: ['1'], description: 'Zoom to 100%', group: 'Mask editor' },
  {
    id: 'pan',
    combos: ['space'],
    description: 'Hold and drag to pan (or drag with the middle button; the wheel zooms)',
    group: 'Mask editor',
    displayOnly: true,
  },
];

export interface KeyLike {
  key: string;
  ctrlKey: boolean;
  metaKey: boolean;
  shiftKey: boolean;
  altKey: boolean;
}

interface Combo {
  key: string;
  mod: boolean;
  shift: boolean;
}

function parseCombo(text: string): Combo {
  const parts = text.split('+');
  // '+' on its own is the key, not a separator.
  const key = text.endsWith('+') ? '+' : parts[parts.length - 1]!;
  return { key: key.toLowerCase(), mod: parts.includes('mod'), shift: parts.includes('shift') };
}

/** Letters compare by letter (Shift+Z arrives as 'Z'); symbols as typed ('?' is Shift+/). */
function keyOf(event: KeyLike): string {
  if (event.key === ' ') return 'space';
  return event.key.toLowerCase();
}

function matchesCombo(event: KeyLike, combo: Combo): boolean {
  if (keyOf(event) !== combo.key || event.altKey) return false;
  const mod = event.ctrlKey || event.metaKey;
  if (mod !== combo.mod) return false;
  // Shift matters for letters and Enter; symbol keys need it to be typed at all.
  const isSymbol = combo.key.length === 1 && !/[a-z0-9]/.test(combo.key);
  return isSymbol || event.shiftKey === combo.shift;
}

/** Text inputs, text areas, selects and editable content keep plain keys for typing. */
export function isTypingTarget(target: EventTarget | null): boolean {
  if (typeof HTMLElement === 'undefined' || !(target instanceof HTMLElement)) return false;
  if (target.isContentEditable) return true;
  if (target instanceof HTMLTextAreaElement || target instanceof HTMLSelectElement) return true;
  if (target instanceof HTMLInputElement) {
    return !['checkbox', 'radio', 'range', 'button', 'submit', 'reset', 'color', 'file'].includes(
      target.type,
    );
  }
  return false;
}

const SEQUENCE_MS = 1500;

/**
 * Matches key events against the shortcuts that have a handler. Keeps the first key of a
 * sequence (`g`) for a moment, so `g` then `e` goes to Edit.
 */
export class ShortcutMatcher {
  private pending: { key: string; at: number } | null = null;

  constructor(
    private readonly enabled: ReadonlySet<ShortcutId>,
    private readonly now: () => number = () => Date.now(),
    private readonly defs: readonly ShortcutDef[] = SHORTCUTS,
  ) {}

  match(event: KeyLike, typing: boolean): ShortcutId | null {
    const pending =
      this.pending && this.now() - this.pending.at <= SEQUENCE_MS ? this.pending.key : null;
    this.pending = null;
    let startsSequence = false;
    for (const def of this.defs) {
      if (!this.enabled.has(def.id) || def.displayOnly) continue;
      if (typing && !def.inTextFields) continue;
      for (const text of def.combos) {
        const steps = text.split(' ');
        if (steps.length === 2) {
          const [first, second] = steps.map(parseCombo) as [Combo, Combo];
          if (pending === first.key && matchesCombo(event, second)) return def.id;
          if (matchesCombo(event, first)) startsSequence = true;
        } else if (pending === null && matchesCombo(event, parseCombo(text))) {
          return def.id;
        }
      }
    }
    if (startsSequence) this.pending = { key: keyOf(event), at: this.now() };
    return null;
  }
}

const KEY_NAMES: Record<string, string> = { enter: 'Enter', space: 'Space', escape: 'Esc' };

/** 'mod+shift+z' -> 'Ctrl+Shift+Z' (or '⌘⇧Z' on a Mac); 'g e' -> 'G then E'. */
export function formatCombo(text: string, mac: boolean): string {
  return text
    .split(' ')
    .map((step) => {
      const combo = parseCombo(step);
      const key = KEY_NAMES[combo.key] ?? combo.key.toUpperCase();
      if (mac) return `${combo.mod ? '⌘' : ''}${combo.shift ? '⇧' : ''}${key}`;
      return [combo.mod ? 'Ctrl' : '', combo.shift ? 'Shift' : '', key].filter(Boolean).join('+');
    })
    .join(' then ');
}

export function isMacPlatform(): boolean {
  return typeof navigator !== 'undefined' && /Mac|iPhone|iPad/.test(navigator.platform);
}
