import { Dialog } from '../../components/Dialog';
import { formatCombo, isMacPlatform, SHORTCUTS, type ShortcutGroup } from '../../lib/shortcuts';
import { useUiStore } from '../../stores/ui';

/** Two columns: the general shortcuts, and the mask editor's (the longest list). */
const COLUMNS: ReadonlyArray<readonly ShortcutGroup[]> = [
  ['Everywhere', 'Generate and Edit'],
  ['Mask editor'],
];

/** The list of keyboard shortcuts, read from the same table the handlers use. */
export function ShortcutsHelp() {
  const open = useUiStore((s) => s.helpOpen);
  const setOpen = useUiStore((s) => s.setHelpOpen);
  const mac = isMacPlatform();
  return (
    <Dialog
      open={open}
      onClose={() => setOpen(false)}
      title="Keyboard shortcuts"
      testId="shortcuts-help"
      wide
    >
      <div className="shortcut-groups">
        {COLUMNS.map((groups) => (
          <div key={groups.join()} className="shortcut-column">
            {groups.map((group) => (
              <ShortcutGroupList key={group} group={group} mac={mac} />
            ))}
          </div>
        ))}
      </div>
      <p className="muted">Single-key shortcuts pause while you type in a text field.</p>
    </Dialog>
  );
}

function ShortcutGroupList({ group, mac }: { group: ShortcutGroup; mac: boolean }) {
  const id = `shortcuts-${group.replaceAll(' ', '-').toLowerCase()}`;
  return (
    <section aria-labelledby={id}>
      <h3 id={id}>{group}</h3>
      <dl className="shortcut-list">
        {SHORTCUTS.filter((s) => s.group === group).map((s) => (
          <div key={s.id} className="shortcut-row">
            <dt>
              {s.combos.map((c, i) => (
                <span key={c}>
                  {i > 0 && <span className="muted"> or </span>}
                  <kbd>{formatCombo(c, mac)}</kbd>
                </span>
              ))}
            </dt>
            <dd>{s.description}</dd>
          </div>
        ))}
      </dl>
    </section>
  );
}
