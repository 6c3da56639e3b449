export { createSubscriptionUpstream } from './subscriptionUpstream';
export type { SubscriptionAccount, SubscriptionDeps } from './subscriptionUpstream';
export { DEFAULT_INSTRUCTIONS } from './responsesRelay';
export { IMAGE_INSTRUCTIONS } from './requestBodies';
