import type { TimeoutSettings } from './dispatch/sizeClass';
import type { LiveImageSettings } from './imageService/types';
import { SETTINGS } from './storage/settings';
import {
  settingReader,
  settingsReader,
  type SettingsRepository,
} from './storage/settingsRepository';

/**
 * The settings the request path reads on every request (they change without a restart), as the
 * functions it calls: the composition root hands these on and is not called back itself. They are
 * the settings repository's readers, so a request calls no function of this file either.
 */
export function liveSettings(settings: SettingsRepository, configOrigins: readonly string[] = []) {
  const imageSettings: LiveImageSettings = {
    strictDelivery: settingReader(settings, SETTINGS.strictDelivery),
    ladderForAll: settingReader(settings, SETTINGS.fallbackLadder),
    contentFilter: settingReader(settings, SETTINGS.contentFilter),
  };
  return {
    imageSettings,
    injectImageTool: settingReader(settings, SETTINGS.injectImageTool),
    allowedOrigins: () => [...configOrigins, ...settings.get(SETTINGS.allowedOrigins)],
    upstreamTimeouts: settingsReader<TimeoutSettings>(settings, {
      normalMs: SETTINGS.timeoutNormalMs,
      largeMs: SETTINGS.timeoutLargeMs,
    }),
    bridgeModel: settingReader(settings, SETTINGS.bridgeModel),
    /** Whether the gallery keeps the images of API callers (the studio's it always keeps). */
    keepApiImages: settingReader(settings, SETTINGS.keepApiImages),
  };
}

export type LiveSettings = ReturnType<typeof liveSettings>;
