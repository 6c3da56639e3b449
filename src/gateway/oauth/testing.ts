// Test helper (imported only by *.test.ts). An in-memory SecretStore: the real keychain and the
// encrypted file are tested in src/gateway/secrets; here only the SecretStore contract matters.
import type { SecretStore } from '../secrets/types';

export interface MemorySecretStore extends SecretStore {
  readonly values: Map<string, string>;
  /** Number of `set` calls, to see that rotated tokens were written back. */
  writes: number;
}

export function memorySecretStore(initial: Record<string, string> = {}): MemorySecretStore {
  const values = new Map(Object.entries(initial));
  const store: MemorySecretStore = {
    kind: 'memory',
    values,
    writes: 0,
    get: async (name) => values.get(name) ?? null,
    set: async (name, value) => {
      store.writes += 1;
      values.set(name, value);
    },
    delete: async (name) => {
      values.delete(name);
    },
  };
  return store;
}
