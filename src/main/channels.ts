/** IPC channel names shared by main (handlers) and preload (callers). Nothing else crosses. */
export const IPC = {
  saveFile: 'atelier:save-file',
  revealInFolder: 'atelier:reveal-in-folder',
  openSignIn: 'atelier:open-sign-in',
  startDrag: 'atelier:start-drag',
} as const;

/** What `saveFile` resolves to; the declared global in src/preload/api.d.ts is the source. */
export type SaveFileResult = Awaited<ReturnType<AtelierDesktopApi['saveFile']>>;
