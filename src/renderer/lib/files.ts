import { desktopApi } from './desktop';

/**
 * Saves a file: through the desktop app's save dialog in Electron, as a browser download
 * elsewhere. Resolves false when the person cancelled.
 */
export async function saveBlob(blob: Blob, name: string): Promise<boolean> {
  const desktop = desktopApi();
  if (desktop) {
    const result = await desktop.saveFile(name, new Uint8Array(await blob.arrayBuffer()));
    return result.saved;
  }
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  link.click();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
  return true;
}

const EXTENSIONS: Record<string, string> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/webp': 'webp',
};

/** atelier-20260421-153012-2.png */
export function imageFileName(blob: Blob, at: Date, index: number, prefix = 'atelier'): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  const stamp = `${at.getFullYear()}${pad(at.getMonth() + 1)}${pad(at.getDate())}-${pad(at.getHours())}${pad(at.getMinutes())}${pad(at.getSeconds())}`;
  return `${prefix}-${stamp}-${index + 1}.${EXTENSIONS[blob.type] ?? 'png'}`;
}
