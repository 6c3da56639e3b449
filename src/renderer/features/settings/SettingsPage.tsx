import { Placeholder } from '../../components/Placeholder';

// Placeholder: the page is routed and linked; replace the body with the real page.
export function SettingsPage() {
  return (
    <Placeholder
      id="settings"
      title="Settings"
      description="How the gateway runs."
      coming={[
        'Port, bind address and allowed origins',
        'Content pre-filter, fallback ladder and strict delivered-size mode',
        'Prices, timeouts, keeping API images and the data folder',
      ]}
    />
  );
}
