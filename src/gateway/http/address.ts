import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import { allowedHosts } from './hostGuard';

/**
 * Where the gateway listens, known for certain only once it does (port 0 picks one): its URL, the
 * Host values the host guard allows and the studio's own origins all follow the bound port.
 */
export function serverAddress(host: string, port: number) {
  let bound = port;
  // Sets for the server's life, refilled once the port is bound: the host and origin guards hold
  // them and read them on each request without calling back here.
  const hosts = allowedHosts(host, port);
  const origins = new Set<string>();
  const urlFor = (p: number) => `http://${host.includes(':') ? `[${host}]` : host}:${p}`;
  return {
    get port() {
      return bound;
    },
    url: () => urlFor(bound),
    /** The Host values allowed: the same set all along, refilled when the port is bound. */
    hosts,
    /** The studio's own origins (`http://` and each allowed host), known once the port is bound. */
    origins,
    /** Listens, then takes the port the server really has. */
    listen: (server: http.Server) =>
      new Promise<string>((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => {
          server.off('error', reject);
          bound = (server.address() as AddressInfo).port;
          hosts.clear();
          for (const name of allowedHosts(host, bound)) hosts.add(name);
          origins.clear();
          for (const name of hosts) origins.add(`http://${name}`);
          resolve(urlFor(bound));
        });
      }),
  };
}

export type ServerAddress = ReturnType<typeof serverAddress>;
