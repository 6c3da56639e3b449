import { SETTINGS } from '../settings';
import type { ApiKeyRecord, KeysRepository } from './repository';
import type { SettingsRepository } from '../storage/settingsRepository';

export const STUDIO_KEY_NAME = 'Studio';

export interface StudioKey {
  /** The Studio key, created on first use; null while it is disabled (by hand, from the CLI). */
  get(): Promise<ApiKeyRecord | null>;
  /** Whether `id` is the Studio key (the keys page cannot disable or delete it). */
  is(id: string): boolean;
}

/**
 * The built-in key the studio's own /v1 calls are recorded under. Its plaintext is thrown away
 * at creation: only the studio session can act as it. A settings entry remembers which key it
 * is; should the key be deleted anyway (`atelier keys delete`), a new one takes its place.
 */
export function studioKey(keys: KeysRepository, settings: SettingsRepository): StudioKey {
  const current = async () => {
    const id = settings.get(SETTINGS.studioKeyId);
    return id === null ? null : keys.get(id);
  };
  return {
    async get() {
      const existing = await current();
      if (existing?.status === 'active') return existing;
      if (existing?.status === 'disabled') return null;
      const { record } = await keys.create({ name: STUDIO_KEY_NAME, group: 'default' });
      await settings.set(SETTINGS.studioKeyId, record.id);
      return record;
    },
    is: (id) => settings.get(SETTINGS.studioKeyId) === id,
  };
}
