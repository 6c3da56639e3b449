import './lib/zodConfig';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { hydrateStudioState } from './lib/storage';
import { applyTheme, readThemePreference } from './lib/theme';
import './styles.css';

// Before the first paint, so a dark-theme user never sees a white flash (this origin's copy).
applyTheme(readThemePreference());

const container = document.getElementById('root');
if (!container) throw new Error('index.html has no #root element');

// Before the stores are made (they read their saved state as the App module loads), the
// gateway's copy of the studio's state is read (lib/storage.ts).
void hydrateStudioState().then(async () => {
  // The gateway's copy may say otherwise (a theme chosen on another port).
  applyTheme(readThemePreference());
  const { App } = await import('./App');
  createRoot(container).render(
    <StrictMode>
      <App />
    </StrictMode>,
  );
});
