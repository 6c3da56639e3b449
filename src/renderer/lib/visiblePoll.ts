/** What `pollWhileVisible` needs of `document`, so tests can hand it a stand-in. */
export interface VisibilitySource {
  readonly visibilityState: DocumentVisibilityState;
  addEventListener(type: 'visibilitychange', listener: () => void): void;
  removeEventListener(type: 'visibilitychange', listener: () => void): void;
}

/**
 * Calls `tick` every `intervalMs` while the page is visible, and once at once when it becomes
 * visible again (what changed while it was hidden shows without waiting a whole interval). A
 * hidden studio (a minimised window, a background tab) asks nothing. Returns the stop function.
 */
export function pollWhileVisible(
  tick: () => void,
  intervalMs: number,
  doc: VisibilitySource = document,
): () => void {
  let timer: ReturnType<typeof setInterval> | undefined;
  const stopTimer = () => {
    if (timer !== undefined) clearInterval(timer);
    timer = undefined;
  };
  const follow = () => {
    stopTimer();
    if (doc.visibilityState !== 'visible') return;
    timer = setInterval(tick, intervalMs);
  };
  const onChange = () => {
    if (doc.visibilityState === 'visible') tick();
    follow();
  };
  follow();
  doc.addEventListener('visibilitychange', onChange);
  return () => {
    stopTimer();
    doc.removeEventListener('visibilitychange', onChange);
  };
}
