/** The only module that reads `window.atelier`; it is absent when a browser opens the studio. */
export function desktopApi(): AtelierDesktopApi | undefined {
  return typeof window === 'undefined' ? undefined : window.atelier;
}

export function isDesktop(): boolean {
  return desktopApi() !== undefined;
}

/**
 * Opens an account sign-in's authorize page. The desktop window denies new windows, so there the
 * shell opens it in the system browser (it looks the address up by `loginId` itself); a browser
 * opens a tab.
 */
export async function openSignIn(loginId: string, authorizeUrl: string): Promise<void> {
  const desktop = desktopApi();
  if (desktop) return desktop.openSignIn(loginId);
  window.open(authorizeUrl, '_blank', 'noopener,noreferrer');
}
