/**
 * localStorage with the failures kept inside: storage may be disabled, full, or hold a value an
 * older studio wrote. Readers validate what they get and fall back to their default.
 */
export function readStored<T>(key: string, parse: (value: unknown) => T | null): T | null {
  try {
    const raw = globalThis.localStorage?.getItem(key);
    return raw == null ? null : parse(JSON.parse(raw));
  } catch {
    return null;
  }
}

export function writeStored(key: string, value: unknown): void {
  try {
    globalThis.localStorage?.setItem(key, JSON.stringify(value));
  } catch {
    // Out of space or disabled: the setting lasts for this session only.
  }
}
