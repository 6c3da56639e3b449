import { forgetSpliced, rememberSpliced } from './jsonBody';

/**
 * Noise payloads are deterministic (seeded by prompt) and exist for benchmarks, which ask for the
 * same few 4K images again and again. Encoding a 3840x2160 noise PNG costs about 600 ms of CPU,
 * which on a 2-core machine would compete with the gateway being measured and make the
 * "instant upstream" of issue 5 anything but instant; so finished base64 is kept, by its inputs,
 * up to a byte budget. Concurrent requests for one image share a single encoding. Art payloads
 * and edits are never cached: they are cheap or unique. Each entry's bytes are also kept for
 * replies (see jsonBody.ts), so the cache holds about twice its budget.
 */
export interface NoiseCache {
  /** The cached value for `key`, or `make()`'s, which is then kept (a failure is not). */
  get(key: string, make: () => Promise<string>): Promise<string>;
}

export function createNoiseCache(maxBytes = 512 * 1024 * 1024): NoiseCache {
  const done = new Map<string, string>();
  const pending = new Map<string, Promise<string>>();
  let bytes = 0;

  const keep = (key: string, value: string) => {
    if (value.length > maxBytes) return;
    done.set(key, value);
    rememberSpliced(value);
    bytes += value.length;
    // Map iterates in insertion order, and a hit re-inserts: the first entries are the coldest.
    for (const [oldKey, old] of done) {
      if (bytes <= maxBytes) break;
      done.delete(oldKey);
      forgetSpliced(old);
      bytes -= old.length;
    }
  };

  return {
    get(key, make) {
      const hit = done.get(key);
      if (hit !== undefined) {
        done.delete(key);
        done.set(key, hit);
        return Promise.resolve(hit);
      }
      const inFlight = pending.get(key);
      if (inFlight) return inFlight;
      const made = make().then(
        (value) => {
          pending.delete(key);
          keep(key, value);
          return value;
        },
        (error: unknown) => {
          pending.delete(key);
          throw error;
        },
      );
      pending.set(key, made);
      return made;
    },
  };
}
