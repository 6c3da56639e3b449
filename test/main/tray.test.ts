import { describe, expect, it, vi } from 'vitest';
import { statusLabel, trayMenuTemplate } from '../../src/main/tray';

// tray.ts imports `electron` at the top; these tests use only its pure menu builder. Stand-in
// because Electron's binary cannot run here (see fakeElectron.ts).
vi.mock('electron', () => ({}));

describe('tray menu', () => {
  const actions = { open: vi.fn(), quit: vi.fn() };

  it('shows where the gateway runs and offers Open and Quit', () => {
    const menu = trayMenuTemplate({ state: 'running', url: 'http://127.0.0.1:8787' }, actions);
    expect(menu[0]).toMatchObject({
      label: 'Gateway running at http://127.0.0.1:8787',
      enabled: false,
    });
    const quit = menu.find((item) => item.label === 'Quit Atelier');
    const open = menu.find((item) => item.label === 'Open Atelier');
    expect(open?.enabled).toBe(true);
    open?.click?.({} as never, undefined, {} as never);
    quit?.click?.({} as never, undefined, {} as never);
    expect(actions.open).toHaveBeenCalledOnce();
    expect(actions.quit).toHaveBeenCalledOnce();
  });

  it('says when the usual port was taken and the gateway moved', () => {
    expect(statusLabel({ state: 'running', url: 'http://127.0.0.1:50123', portTaken: 8787 })).toBe(
      'Gateway running at http://127.0.0.1:50123 (port 8787 is in use)',
    );
  });

  it('says when the gateway is stopping', () => {
    expect(statusLabel({ state: 'stopping' })).toBe('Stopping gateway…');
    const menu = trayMenuTemplate({ state: 'stopping' }, actions);
    expect(menu.find((item) => item.label === 'Open Atelier')?.enabled).toBe(false);
  });
});
