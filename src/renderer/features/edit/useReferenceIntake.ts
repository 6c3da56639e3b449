import { useEffect, useEffectEvent, useState, type DragEvent } from 'react';
import { LIMITS } from '../../../shared/imageParams';
import type { ImageRecord } from '../../../shared/admin';
import { gateway } from '../../lib/api/images';
import { useEditStore } from '../../stores/edit';
import { imageFilesOf } from './imageFiles';
import { toReference } from './references';

/**
 * How images come into Edit: files (the button), the gallery picker, a paste anywhere on the
 * page, a drop on the page's layout. Problems go to `notify` in words.
 */
export function useReferenceIntake(notify: (message: string | null) => void) {
  const [galleryOpen, setGalleryOpen] = useState(false);
  const [dropActive, setDropActive] = useState(false);
  const edit = useEditStore.getState;

  const addFiles = async (files: File[], at: 'start' | 'end' = 'end') => {
    notify(null);
    const results = await Promise.allSettled(
      files.map((file) => toReference(file, file.name || 'pasted image')),
    );
    const problems = results.flatMap((r) =>
      r.status === 'rejected'
        ? [r.reason instanceof Error ? r.reason.message : String(r.reason)]
        : [],
    );
    const added = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
    const left = edit().addReferences(added, at);
    if (left > 0) problems.push(`At most ${LIMITS.maxInputImages} images: ${left} left out`);
    if (problems.length > 0) notify(problems.join('. '));
  };

  const pickFromGallery = async (record: ImageRecord) => {
    const blob = await gateway.imageFile(record.id);
    const reference = await toReference(
      blob,
      record.prompt ? `${record.prompt.slice(0, 40)}…` : record.id,
      record.id,
    );
    const left = edit().addReferences([reference]);
    if (left > 0) notify(`At most ${LIMITS.maxInputImages} images`);
    setGalleryOpen(false);
  };

  const onPaste = useEffectEvent((e: ClipboardEvent) => {
    const files = imageFilesOf(e.clipboardData);
    if (files.length === 0) return;
    e.preventDefault();
    void addFiles(files);
  });
  useEffect(() => {
    const listener = (e: ClipboardEvent) => onPaste(e);
    window.addEventListener('paste', listener);
    return () => window.removeEventListener('paste', listener);
  }, []);

  /** Props for the element files are dropped on. */
  const dropZone = {
    onDragOver: (e: DragEvent) => {
      if (!e.dataTransfer.types.includes('Files')) return;
      e.preventDefault();
      e.dataTransfer.dropEffect = 'copy';
      if (!dropActive) setDropActive(true);
    },
    onDragLeave: (e: DragEvent) => {
      if (e.currentTarget === e.target) setDropActive(false);
    },
    onDrop: (e: DragEvent) => {
      setDropActive(false);
      if (!e.dataTransfer.types.includes('Files')) return;
      e.preventDefault();
      const files = imageFilesOf(e.dataTransfer);
      if (files.length === 0) notify('Only PNG, JPEG or WebP images can be added.');
      else void addFiles(files);
    },
  };

  return { addFiles, pickFromGallery, galleryOpen, setGalleryOpen, dropActive, dropZone };
}
