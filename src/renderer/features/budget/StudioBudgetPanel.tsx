import { useState } from 'react';
import { ErrorNotice } from '../../components/ErrorNotice';
import { Segmented } from '../../components/fields';
import { TextField } from '../../components/TextField';
import type { GatewayErrorInfo } from '../../lib/api/errors';
import { errorInfo } from '../../lib/hooks';
import { useBudgetStore } from '../../stores/budget';
import {
  budgetFormFrom,
  budgetLabel,
  budgetPlan,
  type BudgetChoice,
  type BudgetForm,
  type BudgetFormErrors,
} from './studioBudget';
import './budget.css';

const CHOICES: Array<{ value: BudgetChoice; label: string }> = [
  { value: 'none', label: 'No budget' },
  { value: 'session', label: 'This session' },
  { value: 'month', label: 'Per month' },
];

/**
 * The studio's own budget and the confirmation threshold, on the Settings page. A monthly budget
 * is the built-in Studio key's (the gateway enforces it as for any key); a session budget and the
 * threshold are the studio's, kept with its other preferences.
 */
export function StudioBudgetPanel() {
  const studioKey = useBudgetStore((s) => s.studioKey);
  const prefs = useBudgetStore((s) => s.prefs);
  const budget = useBudgetStore((s) => s.budget);
  const save = useBudgetStore((s) => s.save);
  const [form, setForm] = useState<BudgetForm | null>(null);
  const [errors, setErrors] = useState<BudgetFormErrors>({});
  const [failure, setFailure] = useState<GatewayErrorInfo | null>(null);
  const [state, setState] = useState<'idle' | 'saving' | 'saved'>('idle');

  // Until the person types, the form shows what is set (the store loads it on start).
  const shown = form ?? budgetFormFrom(studioKey, prefs);
  const set = (patch: Partial<BudgetForm>) => {
    setForm({ ...shown, ...patch });
    setState('idle');
  };
  const submit = async () => {
    setFailure(null);
    const plan = budgetPlan(shown, studioKey ?? { budgetMicros: null, budgetPeriod: null });
    if (!plan.ok) {
      setErrors(plan.errors);
      return;
    }
    setErrors({});
    setState('saving');
    try {
      await save(plan.keyPatch, plan.prefs);
      setForm(null);
      setState('saved');
    } catch (e) {
      setFailure(errorInfo(e));
      setState('idle');
    }
  };
  const keyPeriod = studioKey?.budgetPeriod;

  return (
    <section className="panel" aria-labelledby="studio-budget" data-testid="studio-budget">
      <h2 id="studio-budget">Studio budget</h2>
      <p className="hint">
        What the studio itself may spend (its requests use the built-in Studio key). The sidebar
        ring shows it{budget ? `: ${budgetLabel(budget)} now` : ''}.
      </p>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void submit();
        }}
        noValidate
        data-testid="studio-budget-form"
      >
        <div className="form-grid">
          <Segmented
            label="Budget"
            value={shown.choice}
            options={CHOICES}
            onChange={(choice) => set({ choice })}
            hint={
              shown.choice === 'session'
                ? 'Kept by the studio: it counts from when the studio started and starts again when it restarts. A request that would pass it is not sent.'
                : shown.choice === 'month'
                  ? `Set on the Studio key: the gateway refuses a request that would pass it (UTC calendar month), across restarts.${keyPeriod && keyPeriod !== 'month' ? ` The key's budget is now per ${keyPeriod} (set on the Keys page); saving makes it monthly.` : ''}`
                  : 'The studio spends without a limit of its own.'
            }
            testId="studio-budget-choice"
          />
          {shown.choice !== 'none' && (
            <TextField
              label="Amount (USD)"
              value={shown.amount}
              onChange={(amount) => set({ amount })}
              error={errors.amount}
              inputMode="decimal"
              placeholder="5.00"
              testId="studio-budget-amount"
            />
          )}
          <TextField
            label="Ask before sending above (USD)"
            value={shown.confirmAbove}
            onChange={(confirmAbove) => set({ confirmAbove })}
            error={errors.confirmAbove}
            hint="Generate and Edit ask first when a request's estimate is above this. Empty: never ask."
            inputMode="decimal"
            placeholder="1.00"
            testId="studio-budget-confirm-above"
          />
        </div>
        {failure && <ErrorNotice error={failure} />}
        <div className="settings-actions">
          <span className="muted" aria-live="polite" data-testid="studio-budget-state">
            {state === 'saved' ? 'Saved.' : ''}
          </span>
          <button
            type="submit"
            className="primary"
            disabled={state === 'saving'}
            data-testid="studio-budget-save"
          >
            {state === 'saving' ? 'Saving…' : 'Save budget'}
          </button>
        </div>
      </form>
    </section>
  );
}
