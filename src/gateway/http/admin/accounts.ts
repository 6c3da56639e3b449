import { Router } from 'express';
import {
  accountLoginBodySchema,
  createAccountBodySchema,
  patchAccountBodySchema,
  type AccountView,
} from '../../../shared/admin';
import { ERROR_TYPES } from '../../../shared/errors';
import type { LoginFlows } from '../../accounts/loginFlows';
import type { AccountPatch } from '../../accounts/repository';
import {
  addApiKeyAccount,
  addSimulatorAccount,
  removeAccount,
  type AccountsContext,
} from '../../accounts/service';
import type { ConnectionTestResult } from '../../dispatch/connectionTest';
import { accountStatus } from '../../accounts/status';
import type { AccountRecord } from '../../core/domain';
import { ApiError } from '../../core/errors';
import { DEFAULT_ISSUER } from '../../oauth/constants';
import { SecretStoreError } from '../../secrets/errors';
import { notFound, parse } from './parse';

export interface AccountsAdminDeps {
  ctx: AccountsContext;
  logins: LoginFlows;
  /** Weight units in flight on the account now (the scheduler's view). */
  loadOf: (id: string) => number;
  /** The account's latest calls did not reach it (dispatch's view): why, since when. */
  failingOf: (id: string) => { reason: string; since: number } | null;
  /** One cheap call to the account, timed (accounts/connectionTest.ts). */
  testConnection: (id: string, baseUrl: string) => Promise<ConnectionTestResult>;
  /** No account is configured and the built-in simulator serves. */
  simulatorOnly: () => boolean;
  now: () => number;
  log: (line: string) => void;
}

/** /api/admin/accounts: upstream accounts with their live state; secrets only ever go in. */
export function accountsAdmin(deps: AccountsAdminDeps): Router {
  const router = Router();
  const { accounts } = deps.ctx;
  const view = (record: AccountRecord): AccountView => {
    const { secretName: _secret, ...rest } = record;
    return {
      ...rest,
      status: accountStatus(record, deps.now(), deps.failingOf(record.id)),
      load: deps.loadOf(record.id),
    };
  };
  const existing = async (id: string) => {
    const record = await accounts.get(id);
    if (!record) throw notFound('account');
    return record;
  };

  router.get('/accounts', async (_req, res) => {
    res.json({ accounts: (await accounts.list()).map(view), simulatorOnly: deps.simulatorOnly() });
  });

  router.post('/accounts', async (req, res) => {
    const body = parse(createAccountBodySchema, req.body);
    const { kind, group, ...options } = body;
    const record =
      kind === 'simulator'
        ? await addSimulatorAccount(accounts, { ...options, group })
        : (await withSecrets(() => addApiKeyAccount(deps.ctx, { ...body, group }))).record;
    res.json({ account: view(record) });
  });

  router.patch('/accounts/:id', async (req, res) => {
    const body = parse(patchAccountBodySchema, req.body);
    const { id } = await existing(req.params.id);
    const patch: AccountPatch = {
      capacity: body.capacity,
      tier: body.tier,
      groupName: body.group,
      maxPixels: body.maxPixels,
      bridgeModel: body.bridgeModel,
    };
    // Enabling also clears an out-of-service reason: the user is saying "try it again".
    if (body.enabled !== undefined)
      Object.assign(
        patch,
        body.enabled ? { enabled: true, disabledReason: null } : { enabled: false },
      );
    await accounts.update(id, patch);
    if (body.clearCooldown) await accounts.setCooldown(id, null, null);
    res.json({ account: view(await existing(id)) });
  });

  router.post('/accounts/:id/test', async (req, res) => {
    const { id, baseUrl } = await existing(req.params.id);
    const result = await deps.testConnection(id, baseUrl);
    res.json({ ...result, account: view(await existing(id)) });
  });

  router.delete('/accounts/:id', async (req, res) => {
    const { id } = await existing(req.params.id);
    await removeAccount(deps.ctx, id, deps.log);
    res.json({ ok: true });
  });

  router.post('/accounts/login', async (req, res) => {
    const body = parse(accountLoginBodySchema, req.body);
    const started = await withSecrets(() =>
      deps.logins
        .start({ ...body, issuer: body.issuer ?? DEFAULT_ISSUER })
        .catch((error: unknown) => {
          if (error instanceof Error && /in use/.test(error.message)) {
            throw new ApiError(409, `The sign-in could not start: ${error.message}.`, {
              type: ERROR_TYPES.invalidRequest,
              code: 'login_in_progress',
            });
          }
          throw error;
        }),
    );
    res.json(started);
  });

  router.get('/accounts/login/:loginId', (req, res) => {
    const flow = deps.logins.get(req.params.loginId);
    if (!flow) throw notFound('sign-in');
    res.json(flow.state === 'done' ? { state: 'done', account: view(flow.account) } : flow);
  });

  return router;
}

/** A missing or locked keychain is the user's to fix, and its message says how. */
async function withSecrets<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof SecretStoreError) {
      throw new ApiError(503, error.message, {
        type: ERROR_TYPES.server,
        code: 'secret_store_unavailable',
      });
    }
    throw error;
  }
}
