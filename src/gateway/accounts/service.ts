import { invalidParam } from '../core/errors';
import { API_KEY_MAX_PIXELS, SUBSCRIPTION_MAX_PIXELS } from './types';
import { toAccountSecret } from '../oauth/tokenManager';
import type { LoginResult } from '../oauth/loopbackLogin';
import { secretNameFor } from '../secrets';
import { writeAccountSecret } from '../secrets/accountSecret';
import type { SecretStore } from '../secrets/types';
import type { AccountsRepository, NewAccount } from './repository';
import { BUILTIN, type AccountRecord } from '../core/domain';

/** The subscription backend that serves the native images channel and the Responses bridge. */
export const DEFAULT_SUBSCRIPTION_BASE_URL = 'https://chatgpt.com/backend-api/codex';

/** Adding accounts, the same from the CLI and the studio. Secrets go to the store, never SQLite. */
export interface AccountsContext {
  accounts: AccountsRepository;
  secrets: () => Promise<SecretStore>;
  dataDir: string;
}

export interface AccountOptions {
  name: string;
  tier?: string;
  group?: string;
  capacity?: number;
  maxPixels?: number;
}

async function fresh(
  accounts: AccountsRepository,
  opts: AccountOptions,
  rest: Pick<NewAccount, 'kind' | 'baseUrl'> & {
    tier: string;
    capacity: number;
    maxPixels: number;
  },
): Promise<NewAccount> {
  const name = opts.name.trim();
  if (!name) throw invalidParam('name', 'An account needs a name.');
  if (await accounts.find(name)) {
    throw invalidParam('name', `An account named '${name}' already exists; choose another name.`);
  }
  return {
    name,
    kind: rest.kind,
    tier: opts.tier ?? rest.tier,
    groupName: opts.group ?? 'default',
    capacity: opts.capacity ?? rest.capacity,
    enabled: true,
    modelMap: {},
    maxPixels: opts.maxPixels ?? rest.maxPixels,
    baseUrl: rest.baseUrl,
    issuer: null,
    bridgeModel: null,
    upstreamAccountId: null,
    secretName: null,
  };
}

export async function addSimulatorAccount(
  accounts: AccountsRepository,
  opts: AccountOptions,
): Promise<AccountRecord> {
  return accounts.create(
    await fresh(accounts, opts, {
      kind: 'simulator',
      baseUrl: BUILTIN,
      tier: 'pro',
      capacity: 4,
      maxPixels: API_KEY_MAX_PIXELS,
    }),
  );
}

/** An API-key account; its key goes to the secret store, and the row is undone if that fails. */
export async function addApiKeyAccount(
  ctx: AccountsContext,
  opts: AccountOptions & { baseUrl: string; apiKey: string },
): Promise<{ record: AccountRecord; store: SecretStore['kind'] }> {
  try {
    new URL(opts.baseUrl);
  } catch {
    throw invalidParam(
      'baseUrl',
      `The base URL is not a URL: '${opts.baseUrl}' (for example https://api.example.com/v1).`,
    );
  }
  // Open the store first: better to fail before anything is written.
  const secrets = await ctx.secrets();
  const record = await ctx.accounts.create(
    await fresh(ctx.accounts, opts, {
      kind: 'api_key',
      baseUrl: opts.baseUrl,
      tier: 'api',
      capacity: 4,
      maxPixels: API_KEY_MAX_PIXELS,
    }),
  );
  const secretName = secretNameFor(ctx.dataDir, record.id);
  try {
    await writeAccountSecret(secrets, secretName, { type: 'api_key', apiKey: opts.apiKey });
  } catch (error) {
    await ctx.accounts.remove(record.id);
    throw error;
  }
  return { record: (await ctx.accounts.update(record.id, { secretName }))!, store: secrets.kind };
}

export interface SubscriptionOptions {
  name: string;
  issuer: string;
  baseUrl?: string;
  bridgeModel?: string;
  group?: string;
  capacity?: number;
  tier?: string;
}

/**
 * Files a finished OAuth sign-in: tokens into the secret store, the tier from the id token's plan
 * claim. Signing in again to the same upstream account refreshes its tokens and puts it back in
 * service instead of adding a second one.
 */
export async function saveSubscriptionLogin(
  ctx: AccountsContext,
  result: LoginResult,
  opts: SubscriptionOptions,
): Promise<{ record: AccountRecord; again: boolean; store: SecretStore['kind'] }> {
  const secrets = await ctx.secrets();
  const same = (await ctx.accounts.list()).find(
    (a) => a.kind === 'subscription' && a.upstreamAccountId === result.accountId,
  );
  if (!same && (await ctx.accounts.find(opts.name))) {
    throw invalidParam(
      'name',
      `An account named '${opts.name}' already exists for another sign-in; choose another name.`,
    );
  }
  const record =
    same ??
    (await ctx.accounts.create({
      name: opts.name,
      kind: 'subscription',
      tier: opts.tier ?? result.planType ?? 'free',
      groupName: opts.group ?? 'default',
      capacity: opts.capacity ?? 2,
      enabled: true,
      modelMap: {},
      maxPixels: SUBSCRIPTION_MAX_PIXELS,
      baseUrl: opts.baseUrl ?? DEFAULT_SUBSCRIPTION_BASE_URL,
      issuer: opts.issuer,
      bridgeModel: opts.bridgeModel ?? null,
      upstreamAccountId: result.accountId,
      secretName: null,
    }));
  const secretName = secretNameFor(ctx.dataDir, record.id);
  await writeAccountSecret(secrets, secretName, toAccountSecret(result));
  const updated = (await ctx.accounts.update(record.id, {
    secretName,
    disabledReason: null,
    tier: opts.tier ?? result.planType ?? record.tier,
  }))!;
  return { record: updated, again: same !== undefined, store: secrets.kind };
}

/** Removes an account and, best effort, its secret. */
export async function removeAccount(
  ctx: AccountsContext,
  id: string,
  log: (line: string) => void,
): Promise<boolean> {
  const account = await ctx.accounts.get(id);
  if (!account || !(await ctx.accounts.remove(id))) return false;
  if (account.secretName) {
    try {
      await (await ctx.secrets()).delete(account.secretName);
    } catch (error) {
      log(`account ${id}: its secret could not be removed from the store: ${String(error)}`);
    }
  }
  return true;
}
