// Installers for the desktop app (`npm run dist`, docs/operations.md "Installers"). Checked offline
// by test/packaging/installer.test.ts; building one needs the network once, to fetch Electron.

/** Every native module stays a real file next to the asar: a .node cannot be loaded from inside it. */
const NATIVE = ['**/*.node', '**/node_modules/@img/**', '**/node_modules/@napi-rs/keyring-*/**'];

/** @type {import('electron-builder').Configuration} */
const config = {
  appId: 'app.atelier.studio',
  // Also the data folder's name (Electron's userData, the CLI's default): never change it, or
  // people's keys, gallery and usage history seem to vanish on update.
  productName: 'Atelier',
  copyright: 'Copyright © Atelier contributors',
  directories: { output: 'dist', buildResources: 'build' },
  // The built app only: main, preload and the studio. electron-builder adds the production
  // `dependencies` from node_modules itself (devDependencies never ship).
  files: [
    'out/main/**',
    'out/preload/**',
    'out/renderer/**',
    'package.json',
    '!**/*.map',
    // Other platforms' prebuilt binaries and the native sources are dead weight in an installer.
    '!**/node_modules/better-sqlite3/{deps,src,binding.gyp}/**',
  ],
  asar: true,
  asarUnpack: NATIVE,
  // N-API prebuilds load in Electron as they are: nothing to rebuild, no compiler needed.
  npmRebuild: false,
  buildDependenciesFromSource: false,
  icon: 'build/icon.png',
  // Electron's fuses, flipped in the binary at packaging time (Electron's security checklist).
  electronFuses: {
    // The app never runs itself as plain Node (ELECTRON_RUN_AS_NODE would turn it into a Node
    // that runs any script with the app's keychain access).
    runAsNode: false,
    // NODE_OPTIONS and --inspect could inject code into the main process that holds the keys.
    enableNodeOptionsEnvironmentVariable: false,
    enableNodeCliInspectArguments: false,
    // The studio's session cookie is a credential: encrypted at rest like Chrome's.
    enableCookieEncryption: true,
    // Only the packaged, integrity-checked app.asar is loaded (macOS and Windows validate it).
    enableEmbeddedAsarIntegrityValidation: true,
    onlyLoadAppFromAsar: true,
    grantFileProtocolExtraPrivileges: false,
  },
  linux: {
    target: ['AppImage', 'deb'],
    category: 'Graphics',
    executableName: 'atelier-studio',
    synopsis: 'Image studio with a local OpenAI-compatible image gateway',
  },
  deb: {
    // The Secret Service for account sign-ins (gnome-keyring or KeePassXC provide it).
    depends: ['libsecret-1-0'],
  },
  mac: {
    // One dmg per architecture, built on that architecture: sharp's native build is an optional
    // dependency installed for the host only, so a universal merge would lack the other half.
    target: ['dmg'],
    category: 'public.app-category.graphics-design',
    hardenedRuntime: true,
  },
  win: { target: ['nsis'] },
  nsis: { oneClick: false, perMachine: false, allowToChangeInstallationDirectory: true },
  publish: null,
};

export default config;
