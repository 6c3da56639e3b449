// Prepares a data folder with the baseline tree's own setup code (baseline.ts): its
// `prepareDataDir` writes accounts and keys in that tree's schema. Given the bundled module's path
// over IPC, it answers what the gateway child needs and exits; the folder stays for the gateway.
import { pathToFileURL } from 'node:url';
import type { BaselineSetupReply, BaselineSetupRequest, GatewayChildConfig } from './protocol';

/** What any tree's `prepareDataDir` returns (sync in older trees, async since the storage port). */
interface PreparedSetup {
  dataDir: string;
  keys: Record<'apiKey' | 'native' | 'bridge', string>;
  gatewayConfig: GatewayChildConfig;
}

type PrepareDataDir = (
  sim: BaselineSetupRequest['sim'],
  opts: BaselineSetupRequest['opts'],
) => PreparedSetup | Promise<PreparedSetup>;

function reply(message: BaselineSetupReply): void {
  process.send!(message, () => process.exit(message.type === 'error' ? 1 : 0));
}

process.once('message', (request: BaselineSetupRequest) => {
  void (async () => {
    const loaded = (await import(pathToFileURL(request.module).href)) as {
      prepareDataDir?: PrepareDataDir;
    };
    if (typeof loaded.prepareDataDir !== 'function')
      throw new Error(`${request.module} exports no prepareDataDir`);
    const setup = await loaded.prepareDataDir(request.sim, request.opts);
    reply({
      type: 'prepared',
      setup: {
        dataDir: setup.dataDir,
        keys: setup.keys,
        gatewayConfig: setup.gatewayConfig,
        tokens: request.sim.tokens,
      },
    });
  })().catch((error: unknown) =>
    reply({ type: 'error', message: error instanceof Error ? error.message : String(error) }),
  );
});
