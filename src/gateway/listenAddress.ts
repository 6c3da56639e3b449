import { databasePath } from './core/dataDir';
import { SETTINGS } from './settings';
import { openDatabase } from './storage/db';
import { createSettingsRepository } from './storage/settingsRepository';

export interface ListenAddress {
  host: string;
  port: number;
}

/**
 * The address saved in Settings for the gateway's next start (127.0.0.1:8787 until one is
 * saved). Read before the gateway starts, so the desktop app and `atelier serve` agree on it.
 */
export function savedListenAddress(dataDir: string): ListenAddress {
  const db = openDatabase(databasePath(dataDir));
  try {
    const settings = createSettingsRepository(db);
    return { host: settings.get(SETTINGS.serverHost), port: settings.get(SETTINGS.serverPort) };
  } finally {
    db.close();
  }
}

/**
 * Back to the default address (127.0.0.1:8787): what the desktop app offers when the saved one
 * cannot be listened on, since the Settings page that changed it is out of reach until it starts.
 */
export function resetListenAddress(dataDir: string): void {
  const db = openDatabase(databasePath(dataDir));
  try {
    const settings = createSettingsRepository(db);
    settings.reset(SETTINGS.serverHost);
    settings.reset(SETTINGS.serverPort);
  } finally {
    db.close();
  }
}
