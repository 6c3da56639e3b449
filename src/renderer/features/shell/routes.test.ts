import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { SHORTCUTS } from '../../lib/shortcuts';
import { ROUTES, routeFor } from './routes';
import { ShortcutsHelp } from './ShortcutsHelp';

describe('routes', () => {
  it('has every studio page, each with its own path and shortcut', () => {
    expect(ROUTES.map((r) => r.path)).toEqual([
      '/',
      '/generate',
      '/edit',
      '/gallery',
      '/usage',
      '/keys',
      '/accounts',
      '/server',
      '/settings',
    ]);
    expect(new Set(ROUTES.map((r) => r.shortcut)).size).toBe(ROUTES.length);
    for (const route of ROUTES) expect(SHORTCUTS.some((s) => s.id === route.shortcut)).toBe(true);
    expect(routeFor('/nowhere')).toBeNull();
  });

  it.each(ROUTES.map((r) => [r.path, r] as const))(
    '%s renders its page root with a test id and a readiness flag',
    (_path, route) => {
      const html = renderToStaticMarkup(createElement(route.page));
      const id = route.path === '/' ? 'home' : route.path.slice(1);
      expect(html).toContain(`data-testid="page-${id}"`);
      expect(html).toMatch(/data-ready="(true|false)"/);
    },
  );

  it('renders the controls end-to-end tests drive on Generate', () => {
    const html = renderToStaticMarkup(createElement(routeFor('/generate')!.page));
    for (const id of ['generate-submit', 'prompt', 'param-size', 'param-n', 'cost-estimate']) {
      expect(html).toContain(`data-testid="${id}"`);
    }
  });
});

describe('ShortcutsHelp', () => {
  it('renders nothing until opened', () => {
    expect(renderToStaticMarkup(createElement(ShortcutsHelp))).not.toContain(
      'Undo the last stroke',
    );
  });
});
