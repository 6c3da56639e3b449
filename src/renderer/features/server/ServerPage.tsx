import { Placeholder } from '../../components/Placeholder';

// Placeholder: the page is routed and linked; replace the body with the real page.
export function ServerPage() {
  return (
    <Placeholder
      id="server"
      title="Server"
      description="Where other apps reach the gateway."
      coming={[
        'The address to copy',
        'curl and openai-node snippets for a chosen key',
        'A live request log',
      ]}
    />
  );
}
