import type { ComponentType } from 'react';
import type { ShortcutId } from '../../lib/shortcuts';
import { AccountsPage } from '../accounts/AccountsPage';
import { EditPage } from '../edit/EditPage';
import { GalleryPage } from '../gallery/GalleryPage';
import { prefetchGallery } from '../gallery/useGalleryList';
import { GeneratePage } from '../generate/GeneratePage';
import { HomePage } from '../home/HomePage';
import { KeysPage } from '../keys/KeysPage';
import { ServerPage } from '../server/ServerPage';
import { SettingsPage } from '../settings/SettingsPage';
import { UsagePage } from '../usage/UsagePage';

export interface RouteDef {
  path: string;
  label: string;
  page: ComponentType;
  group: 'Studio' | 'Gateway';
  shortcut: ShortcutId;
  /** Loads what the page shows first, ahead of a visit (idle after start, hovering its link). */
  prefetch?: () => void;
}

/**
 * Every studio page. The gateway serves index.html for each path, so deep links and reloads
 * work. A new page is one line here plus its folder under features/.
 */
export const ROUTES: readonly RouteDef[] = [
  { path: '/', label: 'Home', page: HomePage, group: 'Studio', shortcut: 'goHome' },
  {
    path: '/generate',
    label: 'Generate',
    page: GeneratePage,
    group: 'Studio',
    shortcut: 'goGenerate',
  },
  { path: '/edit', label: 'Edit', page: EditPage, group: 'Studio', shortcut: 'goEdit' },
  {
    path: '/gallery',
    label: 'Gallery',
    page: GalleryPage,
    group: 'Studio',
    shortcut: 'goGallery',
    prefetch: prefetchGallery,
  },
  { path: '/usage', label: 'Usage', page: UsagePage, group: 'Gateway', shortcut: 'goUsage' },
  { path: '/keys', label: 'Keys', page: KeysPage, group: 'Gateway', shortcut: 'goKeys' },
  {
    path: '/accounts',
    label: 'Accounts',
    page: AccountsPage,
    group: 'Gateway',
    shortcut: 'goAccounts',
  },
  { path: '/server', label: 'Server', page: ServerPage, group: 'Gateway', shortcut: 'goServer' },
  {
    path: '/settings',
    label: 'Settings',
    page: SettingsPage,
    group: 'Gateway',
    shortcut: 'goSettings',
  },
];

export function routeFor(path: string): RouteDef | null {
  return ROUTES.find((r) => r.path === path) ?? null;
}
