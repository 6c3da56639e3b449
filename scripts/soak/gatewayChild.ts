// The gateway under soak: a real gateway in its own process, with a real SQLite file. It answers
// `memory` (after a full garbage collection: run with --expose-gc) and stops on `close` as on
// SIGTERM.
import { createGateway } from '../../src/gateway';

const [dataDir, upstreamBaseUrl] = process.argv.slice(2);
if (!dataDir || !upstreamBaseUrl) throw new Error('usage: gatewayChild DATA_DIR UPSTREAM_URL');

const gateway = await createGateway({
  host: '127.0.0.1',
  port: 0,
  dataDir,
  upstreamBaseUrl,
  upstreamApiKey: 'sk-soak',
  oauthCallbackPort: 0,
  log: (line) => process.stderr.write(`[gateway] ${line}\n`),
});
const url = await gateway.listen();

const collect = globalThis.gc ?? (() => undefined);
process.on('message', (message: { type: string }) => {
  if (message.type === 'memory') {
    // Twice: the first pass can leave what finalisers free for the second.
    collect();
    collect();
    const { rss, heapUsed, external, arrayBuffers } = process.memoryUsage();
    process.send!({ type: 'memory', rss, heapUsed, external, arrayBuffers });
  } else if (message.type === 'close') {
    void gateway.close().then(() => process.exit(0));
  }
});
process.on('SIGTERM', () => void gateway.close().then(() => process.exit(0)));
process.send!({ type: 'ready', url, pid: process.pid });
