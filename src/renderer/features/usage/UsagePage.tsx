import { Placeholder } from '../../components/Placeholder';

// Placeholder: the page is routed and linked; replace the body with the real page.
export function UsagePage() {
  return (
    <Placeholder
      id="usage"
      title="Usage"
      description="Tokens and cost by day, model, key and account."
      coming={[
        'Charts of tokens and cost by day, model, key and account',
        'A per-request table with filters',
        'CSV export',
      ]}
    />
  );
}
