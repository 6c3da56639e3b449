/** Messages between `npm run bench:stages` and its two children (gateway, simulator). */

export interface StagesGatewayConfig {
  dataDir: string;
  upstreamBaseUrl: string;
}

/** How many requests, counted since the gateway started, are over (and images kept). */
export interface Totals {
  settled: number;
  images: number;
}

export type ToStagesGateway =
  | { type: 'start'; config: StagesGatewayConfig }
  /** Answer `quiet` once these totals are reached (the warm-up's work after its replies is done). */
  | { type: 'quiesce'; totals: Totals }
  /** Start profiling; stop once these totals are reached. */
  | { type: 'profile'; until: Totals }
  | { type: 'close' };

export type FromStagesGateway =
  | { type: 'ready'; url: string }
  | { type: 'quiet' }
  | { type: 'profiling' }
  /** The profile of the measured requests (a .cpuprofile file) and the process's CPU meanwhile. */
  | { type: 'profiled'; file: string; cpuUserUs: number; cpuSystemUs: number; wallMs: number };

export interface StagesSimulatorReady {
  type: 'ready';
  url: string;
}
