import { EventEmitter } from 'node:events';
import { vi } from 'vitest';

/**
 * A STAND-IN for the `electron` module. Electron's binary cannot run on this machine (it is
 * downloaded on first launch, and there is no internet and no display), so main-process tests
 * run on plain Node with this fake and check what main asks Electron to do.
 * Each `createFakeElectron()` is independent; tests get a fresh one via `vi.resetModules()`.
 */

export interface FakeEvent {
  preventDefault: () => void;
  defaultPrevented: boolean;
  [key: string]: unknown;
}

export function fakeEvent(fields: Record<string, unknown> = {}): FakeEvent {
  const event: FakeEvent = {
    ...fields,
    defaultPrevented: false,
    preventDefault: () => {
      event.defaultPrevented = true;
    },
  };
  return event;
}

type HeadersListener = (
  details: { url: string; responseHeaders?: Record<string, string[]> },
  callback: (response: { responseHeaders?: Record<string, string | string[]> }) => void,
) => void;
type PermissionHandler = (
  contents: unknown,
  permission: string,
  callback: (granted: boolean) => void,
  details: { requestingUrl: string },
) => void;

type PermissionCheckHandler = (
  contents: unknown,
  permission: string,
  requestingOrigin: string,
) => boolean;
type DeviceHandler = (details: { deviceType: string; origin: string }) => boolean;

export class FakeSession {
  headersListener: HeadersListener | undefined;
  permissionHandler: PermissionHandler | undefined;
  permissionCheckHandler: PermissionCheckHandler | undefined;
  deviceHandler: DeviceHandler | undefined;
  webRequest = {
    onHeadersReceived: (listener: HeadersListener) => {
      this.headersListener = listener;
    },
  };
  setPermissionRequestHandler(handler: PermissionHandler) {
    this.permissionHandler = handler;
  }
  setPermissionCheckHandler(handler: PermissionCheckHandler) {
    this.permissionCheckHandler = handler;
  }
  setDevicePermissionHandler(handler: DeviceHandler) {
    this.deviceHandler = handler;
  }
}

export class FakeWebContents extends EventEmitter {
  session = new FakeSession();
  windowOpenHandler: ((details: { url: string }) => { action: string }) | undefined;
  setWindowOpenHandler(handler: (details: { url: string }) => { action: string }) {
    this.windowOpenHandler = handler;
  }
}

export class FakeBrowserWindow extends EventEmitter {
  webContents = new FakeWebContents();
  loadURL = vi.fn(async (_url: string) => {});
  show = vi.fn();
  focus = vi.fn();
  restore = vi.fn();
  minimized = false;
  destroyed = false;
  constructor(readonly options: Record<string, unknown>) {
    super();
  }
  isMinimized() {
    return this.minimized;
  }
  isDestroyed() {
    return this.destroyed;
  }
}

export class FakeApp extends EventEmitter {
  hasLock = true;
  requestSingleInstanceLock = vi.fn(() => this.hasLock);
  whenReady = vi.fn(async () => {});
  getPath = vi.fn((name: string) => `/fake/${name}`);
  private resolveExited!: (code: number) => void;
  /** Settles when main calls `app.exit`, so tests wait on the event rather than on time. */
  exited = new Promise<number>((resolve) => (this.resolveExited = resolve));
  exit = vi.fn((code = 0) => this.resolveExited(code));
  relaunch = vi.fn();
  /** Like Electron: `before-quit` first, and quitting stops if a listener prevents it. */
  quit = vi.fn(() => {
    const event = fakeEvent();
    this.emit('before-quit', event);
    if (!event.defaultPrevented) this.emit('quit');
  });
}

export class FakeTray {
  toolTip: string | undefined;
  menu: unknown[] | undefined;
  constructor(_image: unknown) {}
  setToolTip(text: string) {
    this.toolTip = text;
  }
  setContextMenu(menu: unknown[]) {
    this.menu = menu;
  }
}

export function createFakeElectron() {
  const windows: FakeBrowserWindow[] = [];
  const trays: FakeTray[] = [];
  const ipcHandlers = new Map<string, (event: unknown, ...args: unknown[]) => unknown>();

  // Subclasses that record each instance, so tests can reach what main created.
  const BrowserWindow: typeof FakeBrowserWindow = class extends FakeBrowserWindow {
    constructor(options: Record<string, unknown>) {
      super(options);
      windows.push(this);
    }
  };
  const Tray: typeof FakeTray = class extends FakeTray {
    constructor(image: unknown) {
      super(image);
      trays.push(this);
    }
  };

  return {
    app: new FakeApp(),
    BrowserWindow,
    Tray,
    Menu: { buildFromTemplate: (template: unknown[]) => template },
    nativeImage: {
      createFromDataURL: (url: string) => ({ url }),
      /** An image of the file at `path` (empty when the path is empty), resizable. */
      createFromPath: (path: string) => ({
        path,
        isEmpty: () => path === '',
        resize: (options: { width?: number; height?: number }) => ({ path, ...options }),
      }),
    },
    nativeTheme: { shouldUseDarkColors: false },
    shell: {
      openExternal: vi.fn(async (_url: string) => {}),
      showItemInFolder: vi.fn(),
      openPath: vi.fn(async (_path: string) => ''),
    },
    dialog: {
      showErrorBox: vi.fn((_title: string, _content: string) => {}),
      /** Answers with the button a test chooses (the last, Quit, unless told otherwise). */
      showMessageBox: vi.fn(async (options: { buttons: string[] }) => ({
        response: options.buttons.length - 1,
      })),
      showSaveDialog: vi.fn(
        async (..._args: unknown[]): Promise<{ canceled: boolean; filePath?: string }> => ({
          canceled: true,
        }),
      ),
    },
    ipcMain: {
      handle: vi.fn((channel: string, handler: (event: unknown, ...args: unknown[]) => unknown) => {
        ipcHandlers.set(channel, handler);
      }),
    },
    // Test-only handles on what main created.
    windows,
    trays,
    ipcHandlers,
  };
}

export type FakeElectron = ReturnType<typeof createFakeElectron>;
