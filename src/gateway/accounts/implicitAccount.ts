import { startSimulator, type Simulator } from '../../simulator';
import type { GatewayConfig } from '../config';
import { API_KEY_MAX_PIXELS } from './types';
import { IMPLICIT_ACCOUNT_CAPACITY } from '../core/tunables';
import { BUILTIN, type AccountRecord } from '../core/domain';

/**
 * The built-in simulator runs whenever no external upstream URL is forced: it serves while no
 * account is configured, and backs accounts of kind 'simulator'.
 */
export function startBuiltInSimulator(
  config: Pick<GatewayConfig, 'upstreamBaseUrl' | 'simulatorSpeed' | 'simulatorControlToken'>,
): Promise<Simulator | null> {
  if (config.upstreamBaseUrl) return Promise.resolve(null);
  return startSimulator({
    speed: config.simulatorSpeed ?? 1,
    controlToken: config.simulatorControlToken,
  });
}

/** The account that serves while none is configured: the simulator, or a forced upstream URL. */
export function implicitAccount(
  config: Pick<GatewayConfig, 'upstreamBaseUrl'>,
  simulator: Simulator | null,
): AccountRecord | null {
  const common = {
    tier: 'api',
    groupName: '*',
    capacity: IMPLICIT_ACCOUNT_CAPACITY,
    enabled: true,
    modelMap: {},
    maxPixels: API_KEY_MAX_PIXELS,
    issuer: null,
    bridgeModel: null,
    upstreamAccountId: null,
    secretName: null,
    disabledReason: null,
    cooldownUntil: null,
    cooldownReason: null,
    cooldownKind: null,
    createdAt: 0,
  };
  if (config.upstreamBaseUrl) {
    return {
      ...common,
      id: 'upstream',
      name: new URL(config.upstreamBaseUrl).host,
      kind: 'api_key',
      baseUrl: config.upstreamBaseUrl,
    };
  }
  return simulator
    ? { ...common, id: 'simulator', name: 'Offline simulator', kind: 'simulator', baseUrl: BUILTIN }
    : null;
}
