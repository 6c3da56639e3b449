import type { TimeoutSettings } from './dispatch/timeouts';
import type { LiveImageSettings } from './imageService/types';
import { SETTINGS } from './settings';
import type { SettingsRepository } from './storage/settingsRepository';

/**
 * The settings the request path reads on every request (they change without a restart), as the
 * functions it calls: the composition root hands these on and is not called back itself.
 */
export type LiveSettings = ReturnType<typeof liveSettings>;

export function liveSettings(settings: SettingsRepository, configOrigins: readonly string[] = []) {
  const imageSettings: LiveImageSettings = {
    strictDelivery: () => settings.get(SETTINGS.strictDelivery),
    ladderForAll: () => settings.get(SETTINGS.fallbackLadder),
    contentFilter: () => settings.get(SETTINGS.contentFilter),
  };
  return {
    imageSettings,
    injectImageTool: () => settings.get(SETTINGS.injectImageTool),
    allowedOrigins: () => [...configOrigins, ...settings.get(SETTINGS.allowedOrigins)],
    upstreamTimeouts: (): TimeoutSettings => ({
      normalMs: settings.get(SETTINGS.timeoutNormalMs),
      largeMs: settings.get(SETTINGS.timeoutLargeMs),
    }),
    bridgeModel: () => settings.get(SETTINGS.bridgeModel),
    /** Whether the gallery keeps the images of API callers (the studio's it always keeps). */
    keepApiImages: () => settings.get(SETTINGS.keepApiImages),
  };
}
