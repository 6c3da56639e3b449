import { describe, expect, it } from 'vitest';
import { galleryPort, keepsImagesOf } from './port';
import type { ImageStore } from './store';

describe('the gallery keep rule', () => {
  it.each([
    { studioSession: true, connected: true, setting: false, kept: true },
    { studioSession: false, connected: true, setting: true, kept: true },
    { studioSession: false, connected: true, setting: false, kept: false },
    // Paid for and nobody else has it: kept whatever the setting says.
    { studioSession: false, connected: false, setting: false, kept: true },
  ])('studio $studioSession, connected $connected, setting $setting: kept $kept', (row) => {
    expect(keepsImagesOf(row, () => row.setting)).toBe(row.kept);
  });

  it("reads a caller's getters (a request scope), never only its own fields", () => {
    class Scope {
      get studioSession() {
        return true;
      }
    }
    const port = galleryPort(
      {} as ImageStore,
      () => Promise.resolve(false),
      () => false,
      () => undefined,
    );
    expect(port.keeps(new Scope())).toBe(true);
  });
});
