/** The only module that reads `window.atelier`; it is absent when a browser opens the studio. */
export function desktopApi(): AtelierDesktopApi | undefined {
  return typeof window === 'undefined' ? undefined : window.atelier;
}

export function isDesktop(): boolean {
  return desktopApi() !== undefined;
}
