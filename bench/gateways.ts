import type { BenchContext } from './context';
import { startGatewayProcess, type GatewayProcess } from './processes';
import { prepareDataDir, type BenchSetup } from './setup';

export interface ExtraGateway {
  gateway: GatewayProcess;
  setup: BenchSetup;
  close(): Promise<void>;
}

/**
 * Another gateway child with its own fresh data folder, the gallery on (as installed) or off,
 * on the folder's SQLite file or on a PostgreSQL database: for the cases that compare them. Its CPU counts as the benchmark's own, not as
 * other processes' load.
 */
export async function startExtraGateway(
  ctx: BenchContext,
  keepApiImages: boolean,
  opts: { databaseUrl?: string } = {},
): Promise<ExtraGateway> {
  const setup = await prepareDataDir(ctx.sim, {
    verbose: ctx.plan.verbose,
    keepApiImages,
    ...opts,
  });
  const gateway = await startGatewayProcess(setup.gatewayConfig, {
    flags: ctx.plan.gatewayFlags,
    // --profile covers these children too: the paths cases measure them, not the main one.
    cpuProfileDir: ctx.plan.cpuProfileDir ?? undefined,
  });
  ctx.ownPid(gateway.pid);
  return {
    gateway,
    setup,
    async close() {
      ctx.forgetPid(gateway.pid);
      await gateway.close();
      setup.remove();
    },
  };
}
