import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { LoginScreen } from './LoginScreen';

const render = (expired?: boolean) =>
  renderToStaticMarkup(createElement(LoginScreen, { onRetry: () => {}, expired }));

describe('LoginScreen', () => {
  it('asks a first-time visitor for the login link, without talk of expiry', () => {
    const html = render();
    expect(html).toContain('Open your login link');
    expect(html).toContain('data-expired="false"');
    expect(html).not.toContain('data-testid="session-expired"');
    // A used or expired link is no dead end: the terminal prints another on Enter.
    expect(html).toMatch(/press Enter[\s\S]*atelier serve/);
  });

  it('says the session ended, and why it can, when it was lost under a running studio', () => {
    const html = render(true);
    expect(html).toContain('Your studio session has ended');
    expect(html).toContain('data-expired="true"');
    expect(html).toContain('data-testid="session-expired"');
    expect(html).toMatch(/30 days[\s\S]*restarted/);
    // How to get back in is still there.
    expect(html).toContain('/login?token=');
  });
});
