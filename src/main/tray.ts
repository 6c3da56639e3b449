import { Menu, Tray, nativeImage, type MenuItemConstructorOptions } from 'electron';

/** 32x32 violet dot; small enough to inline, so the tray needs no asset pipeline. */
const ICON =
  'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAACAAAAAgCAYAAABzenr0AAAAy0lEQVR42u2XwQ2FIAyGuTAE27BHJ+DQEViHebqES3DxxQQTY3wgQm0PHv6LAf+PtkAxCGQkZT6AB5MsAnkECggUi0L5ZjkBNoOEQBmB1j/KZYyfCeDKT9dOpTJ3CGBbyfLAfNfSikbLPA+YH9PiewHc4MqvIuF6ANJE82NN3ALwDOa7/B2AxAiQWgB2UuHVCtLWADjDf5mGM0B4ASDUAOILAFE1gHgKxItQfBuKH0QqjmLxy0jFdSzekKhoyVQ0pSracjUPk+9tyKIfWhxKGRq+h3oAAAAASUVORK5CYII=';

export type ServerStatus =
  | {
      state: 'running';
      url: string;
      /** The usual port, held by another program. */ portTaken?: number | null;
    }
  | { state: 'stopping' };

export interface TrayActions {
  open: () => void;
  quit: () => void;
}

export function statusLabel(status: ServerStatus): string {
  if (status.state === 'stopping') return 'Stopping gateway…';
  const moved = status.portTaken ? ` (port ${status.portTaken} is in use)` : '';
  return `Gateway running at ${status.url}${moved}`;
}

export function trayMenuTemplate(
  status: ServerStatus,
  actions: TrayActions,
): MenuItemConstructorOptions[] {
  return [
    { label: statusLabel(status), enabled: false },
    { type: 'separator' },
    { label: 'Open Atelier', click: () => actions.open(), enabled: status.state === 'running' },
    { label: 'Quit Atelier', click: () => actions.quit() },
  ];
}

export interface AppTray {
  setStatus: (status: ServerStatus) => void;
}

/** The tray is a convenience: where the desktop has none, Atelier runs without it. */
export function createAppTray(status: ServerStatus, actions: TrayActions): AppTray | undefined {
  let tray: Tray;
  try {
    tray = new Tray(nativeImage.createFromDataURL(ICON));
  } catch (error) {
    console.warn('Atelier: no system tray here;', error);
    return undefined;
  }
  const setStatus = (next: ServerStatus) => {
    tray.setToolTip(`Atelier: ${statusLabel(next)}`);
    tray.setContextMenu(Menu.buildFromTemplate(trayMenuTemplate(next, actions)));
  };
  setStatus(status);
  return { setStatus };
}
