import { fork } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BaselineBuild } from './baselineBuild';
import { benchDataRoot } from './dataRoot';
import type { BenchContext } from './context';
import type { ExtraGateway } from './gateways';
import { startGatewayProcess } from './processes';
import type { BaselineSetup, BaselineSetupReply, BaselineSetupRequest } from './protocol';

const here = path.dirname(fileURLToPath(import.meta.url));

/**
 * A fresh data folder prepared by the baseline's own setup code, in a child process of its own
 * (baselineSetupChild.ts), which answers the folder, the keys and the gateway child's config.
 */
async function prepareBaseline(
  ctx: BenchContext,
  baseline: BaselineBuild,
  keepApiImages: boolean,
): Promise<BaselineSetup> {
  // The other tree makes its folder in os.tmpdir(): pointed at the same root as this tree's, so
  // both gateways create their files alike (dataRoot.ts).
  const child = fork(path.join(here, 'baselineSetupChild.mjs'), [], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    env: { ...process.env, TMPDIR: benchDataRoot() },
  });
  const reply = new Promise<BaselineSetupReply>((resolve, reject) => {
    child.once('message', (message: BaselineSetupReply) => resolve(message));
    child.once('exit', (code) =>
      reject(new Error(`the baseline's setup exited with ${code} before it answered`)),
    );
  });
  const { sim } = ctx;
  child.send({
    type: 'prepare',
    module: baseline.setupModule,
    sim: { type: 'ready', url: sim.url, bridgeUrl: sim.bridgeUrl, tokens: sim.tokens },
    opts: { verbose: ctx.plan.verbose, keepApiImages },
  } satisfies BaselineSetupRequest);
  const answer = await reply;
  if (answer.type === 'error') throw new Error(`the baseline's setup failed: ${answer.message}`);
  return answer.setup;
}

/**
 * The baseline's gateway, as installed (gallery on) unless told otherwise, on a fresh data folder.
 * Its CPU counts as the benchmark's own.
 */
export async function startBaselineGateway(
  ctx: BenchContext,
  keepApiImages = true,
): Promise<ExtraGateway> {
  const baseline = ctx.baseline;
  if (!baseline) throw new Error('no --baseline was given');
  const prepared = await prepareBaseline(ctx, baseline, keepApiImages);
  const remove = () => fs.rmSync(prepared.dataDir, { recursive: true, force: true });
  try {
    const gateway = await startGatewayProcess(prepared.gatewayConfig, {
      flags: ctx.plan.gatewayFlags,
      cpuProfileDir: ctx.plan.cpuProfileDir ?? undefined,
      script: baseline.gatewayChild,
    });
    ctx.ownPid(gateway.pid);
    return {
      gateway,
      setup: { ...prepared, remove },
      async close() {
        ctx.forgetPid(gateway.pid);
        await gateway.close();
        remove();
      },
    };
  } catch (error) {
    remove();
    throw error;
  }
}
