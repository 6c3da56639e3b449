import { useBudgetStore } from '../../stores/budget';
import { NavLink } from '../shell/NavLink';
import { budgetLabel, budgetPercent, budgetTone } from './studioBudget';
import './budget.css';

const RADIUS = 15;
const CIRCUMFERENCE = 2 * Math.PI * RADIUS;

/**
 * The studio budget in the sidebar: a ring filling with the Studio key's spend against its
 * budget ("$0.42 of $5.00 this month"). It links to Settings, where the budget is set; without
 * one it offers to set one.
 */
export function BudgetRing() {
  const budget = useBudgetStore((s) => s.budget);
  if (!budget) {
    return (
      <NavLink to="/settings" className="budget-ring budget-none" testId="budget-ring">
        <span className="muted">Set a studio budget</span>
      </NavLink>
    );
  }
  const percent = budgetPercent(budget);
  const label = budgetLabel(budget);
  const filled = Math.min(1, Math.max(0, budget.spentMicros / budget.budgetMicros));
  return (
    <NavLink
      to="/settings"
      className={`budget-ring budget-${budgetTone(budget)}`}
      testId="budget-ring"
    >
      <span
        role="meter"
        aria-label="Studio budget spent"
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={Math.min(100, percent)}
        aria-valuetext={label}
        title={`${label} (${budget.kind === 'key' ? 'enforced by the gateway' : 'held by the gateway for this studio session, in every tab'})`}
        data-testid="budget-meter"
        data-percent={percent}
        data-kind={budget.kind}
      >
        <svg viewBox="0 0 36 36" width="36" height="36" aria-hidden="true">
          <circle className="budget-ring-track" cx="18" cy="18" r={RADIUS} />
          <circle
            className="budget-ring-fill"
            cx="18"
            cy="18"
            r={RADIUS}
            strokeDasharray={`${filled * CIRCUMFERENCE} ${CIRCUMFERENCE}`}
            transform="rotate(-90 18 18)"
          />
        </svg>
      </span>
      <span className="budget-ring-text">
        <span className="budget-ring-heading">Studio budget</span>
        <span data-testid="budget-label">{label}</span>
      </span>
    </NavLink>
  );
}
