import { useEffect, useState } from 'react';
import { useEditStore } from '../../stores/edit';
import { useMaskStore } from '../../stores/mask';
import { keepEditWork } from './editWork';

/**
 * The image being edited (the first reference), with its mask document attached; the work kept
 * from before a reload comes back, and what is done here is kept from now on.
 */
export function useEditSource() {
  const references = useEditStore((s) => s.references);
  const attach = useMaskStore((s) => s.attach);
  useEffect(() => {
    void keepEditWork();
  }, []);
  const source = references[0] ?? null;
  useEffect(() => {
    attach(source?.id ?? null, source?.width ?? 0, source?.height ?? 0);
  }, [attach, source?.id, source?.width, source?.height]);
  return { references, source };
}

/** A send refused for an empty mask: the refusal lasts until the mask changes. */
export function useMaskRefusal() {
  const doc = useMaskStore((s) => s.doc);
  const version = useMaskStore((s) => s.version);
  const [refused, setRefused] = useState<{ doc: unknown; version: number } | null>(null);
  return {
    refused: refused?.doc === doc && refused.version === version,
    refuse: (at: { doc: unknown; version: number }) => setRefused(at),
    clear: () => setRefused(null),
  };
}
