import type { Gateway } from '../gateway';

export interface Listening {
  gateway: Gateway;
  url: string;
  /** The preferred port when another program held it (the gateway then took a free one). */
  portTaken: number | null;
}

/**
 * Starts the gateway on the port other apps are configured for; when another program holds that
 * port, on any free one instead, rather than refusing to open at all. The studio, the tray and
 * the Server page all show the address it really has.
 */
export async function listenPreferring(
  create: (port: number) => Promise<Gateway>,
  preferred: number,
): Promise<Listening> {
  const gateway = await create(preferred);
  try {
    return { gateway, url: await gateway.listen(), portTaken: null };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE' || preferred === 0) throw error;
    // Never listened: closing only releases its database and simulator for the second try.
    await gateway.close(0);
    const fallback = await create(0);
    return { gateway: fallback, url: await fallback.listen(), portTaken: preferred };
  }
}
