/** Per-key limits (issue 15): a budget, requests per minute, images per day and an expiry. */
export { applyLimits, BUDGET_PERIODS, hasLimits, limitsOf, NO_LIMITS } from './keyLimits';
export type { BudgetPeriod, KeyLimits, KeyLimitsPatch } from './keyLimits';
export { createUsageLedger, type UsageLedger } from './ledger';
export { KeyLimiter, keyLimitUse, type KeyLimitUse, type LimitedKey } from './limiter';
export { LIMIT_ERROR_CODES, type LimitDetail } from './limitErrors';
