import { spawn } from 'node:child_process';
import { openAccountsRepository } from '../accounts/repository';
import { saveSubscriptionLogin } from '../accounts/service';
import { resolveDataDir } from '../core/dataDir';
import { DEFAULT_CLIENT_ID, DEFAULT_ISSUER } from '../oauth/constants';
import { startLoopbackLogin } from '../oauth/loopbackLogin';
import { openSecretStore } from '../secrets';
import { ArgsError, parseArgs } from './args';
import { expectPositionals, STORAGE_FLAGS, withStorage, type CommandIo } from './command';

/** Opens the system browser; where none can be opened, the printed URL is the way. */
function openInBrowser(url: string): void {
  const [command, args] =
    process.platform === 'darwin'
      ? ['open', [url]]
      : process.platform === 'win32'
        ? ['cmd', ['/c', 'start', '', url]]
        : ['xdg-open', [url]];
  try {
    const child = spawn(command, args, { stdio: 'ignore', detached: true });
    child.on('error', () => undefined);
    child.unref();
  } catch {
    // The URL is printed as well.
  }
}

/**
 * `atelier accounts login`: OAuth authorization code with PKCE in the system browser, a loopback
 * callback, tokens into the keychain, the tier from the id token's plan claim. Signing in again to
 * the same upstream account refreshes its tokens and puts it back in service.
 */
export async function login(argv: string[], io: CommandIo): Promise<number> {
  const { flags, positionals } = parseArgs(argv, {
    name: 'string',
    issuer: 'string',
    'base-url': 'string',
    'bridge-model': 'string',
    'client-id': 'string',
    group: 'string',
    capacity: 'string',
    tier: 'string',
    port: 'string',
    'no-browser': 'boolean',
    ...STORAGE_FLAGS,
  });
  expectPositionals(positionals, []);
  const name = flags.name;
  if (!name) throw new ArgsError('--name is required');
  const port = flags.port === undefined ? undefined : Number(flags.port);
  if (port !== undefined && !(Number.isInteger(port) && port >= 0 && port < 65536))
    throw new ArgsError('--port must be a port number');
  const capacity = flags.capacity === undefined ? 2 : Number(flags.capacity);
  if (!Number.isInteger(capacity) || capacity < 1)
    throw new ArgsError('--capacity must be a whole number of at least 1');

  const dataDir = resolveDataDir(flags['data-dir'], io.env);
  // The database is open for the whole sign-in: where the secrets are when kept in it.
  const { record, again, store, result } = await withStorage(flags, io.env, async (engine) => {
    // Open the secret store first: better to fail before the user signs in than after.
    const secrets = await openSecretStore({ dataDir, env: io.env, engine });
    const issuer = flags.issuer ?? DEFAULT_ISSUER;
    const session = await startLoopbackLogin({
      issuer,
      clientId: flags['client-id'] ?? DEFAULT_CLIENT_ID,
      port,
      openBrowser: flags['no-browser'] ? undefined : openInBrowser,
    });
    io.stdout('Sign in in your browser. If it did not open, visit:');
    io.stdout(`  ${session.authorizeUrl}`);
    const signedIn = await session.result;
    const saved = await saveSubscriptionLogin(
      { accounts: await openAccountsRepository(engine), secrets: async () => secrets, dataDir },
      signedIn,
      {
        name,
        issuer,
        baseUrl: flags['base-url'],
        bridgeModel: flags['bridge-model'],
        group: flags.group,
        capacity,
        tier: flags.tier,
      },
    );
    return { ...saved, result: signedIn };
  });
  io.stdout(
    `${again ? 'Signed in again to' : 'Added'} subscription account ${record.id} "${record.name}"` +
      ` (${result.email ?? 'unknown email'}, plan ${result.planType ?? 'unknown'}); tokens are in the ${store}.`,
  );
  return 0;
}
