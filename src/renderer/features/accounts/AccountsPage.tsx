import { Placeholder } from '../../components/Placeholder';

// Placeholder: the page is routed and linked; replace the body with the real page.
export function AccountsPage() {
  return (
    <Placeholder
      id="accounts"
      title="Accounts"
      description="The upstream accounts images are made with."
      coming={[
        'Add an API key, OAuth or simulator account',
        'Tier, capacity, live load and status',
        'Cooldown reason and time left; enable and disable',
      ]}
    />
  );
}
