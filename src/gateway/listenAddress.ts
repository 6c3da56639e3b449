import { databasePath } from './core/dataDir';
import { SETTINGS } from './storage/settings';
import { openDatabase } from './storage/db';
import { openSettingsRepository } from './storage/settingsRepository';
import { openPostgresDatabase } from './storage/postgresEngine';
import { sqliteEngine } from './storage/sqliteEngine';

export interface ListenAddress {
  host: string;
  port: number;
}

/**
 * The address saved in Settings for the gateway's next start (127.0.0.1:8787 until one is
 * saved). Read before the gateway starts, so the desktop app and `atelier serve` agree on it;
 * with a PostgreSQL URL (a team gateway), from that database's Settings.
 */
export async function savedListenAddress(
  dataDir: string,
  databaseUrl?: string,
): Promise<ListenAddress> {
  const engine =
    databaseUrl === undefined
      ? sqliteEngine(openDatabase(databasePath(dataDir)))
      : await openPostgresDatabase({ url: databaseUrl, max: 1 });
  try {
    const settings = await openSettingsRepository(engine);
    return { host: settings.get(SETTINGS.serverHost), port: settings.get(SETTINGS.serverPort) };
  } finally {
    await engine.close();
  }
}

/**
 * Back to the default address (127.0.0.1:8787): what the desktop app offers when the saved one
 * cannot be listened on, since the Settings page that changed it is out of reach until it starts.
 */
export async function resetListenAddress(dataDir: string): Promise<void> {
  const engine = sqliteEngine(openDatabase(databasePath(dataDir)));
  try {
    const settings = await openSettingsRepository(engine);
    await settings.reset(SETTINGS.serverHost);
    await settings.reset(SETTINGS.serverPort);
  } finally {
    await engine.close();
  }
}
