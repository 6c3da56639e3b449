/** What a request will use of a key's limits, known before any upstream call. */
export interface Demand {
  /** The cost estimate in micro-dollars (reserved against a budget until the usage row is written). */
  costMicros: number;
  /** Images the request asks for. */
  images: number;
}

export const NO_DEMAND: Demand = { costMicros: 0, images: 0 };
