// The team demo's body (scripts/team-demo.mjs bundles it). Everything it starts listens on
// 127.0.0.1 and lives in one temp folder, removed when it stops.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { createKeysRepository } from '../../src/gateway/keys/repository';
import { generateSecretKey } from '../../src/gateway/secrets/secretKey';
import { openPostgresDatabase } from '../../src/gateway/storage/postgresEngine';
import { haproxyBinary } from '../../test/support/haproxy';
import { postgresUnavailable, startPostgres } from '../../test/support/postgres';
import { startTeam, teamGatewayUnavailable, type Team } from '../../test/support/team';

const INSTANCES = 3;

function refuse(message: string): never {
  process.stderr.write(`team:demo: ${message}\n`);
  process.exit(1);
}

const missing =
  postgresUnavailable() ??
  (haproxyBinary() ? null : 'HAProxy is not installed (Debian: apt-get install haproxy)');
if (missing) refuse(missing);
const unavailable = teamGatewayUnavailable();
if (unavailable) refuse(unavailable);

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-team-demo-'));
const server = await startPostgres();
let team: Team | null = null;
const stopAll = async () => {
  await team?.stop();
  await server.stop();
  fs.rmSync(root, { recursive: true, force: true });
};

try {
  const maintenance = new pg.Client({ connectionString: server.url });
  await maintenance.connect();
  await maintenance.query('CREATE DATABASE atelier_team');
  await maintenance.end();
  const databaseUrl = new URL(server.url);
  databaseUrl.pathname = '/atelier_team';

  // The key the instances seal upstream secrets with (docs/team.md, "Secrets"): one for all.
  const secretKey = generateSecretKey();
  fs.writeFileSync(path.join(root, 'secret.key'), `${secretKey}\n`, { mode: 0o600 });
  team = await startTeam({
    databaseUrl: databaseUrl.toString(),
    instances: INSTANCES,
    root,
    env: { ATELIER_SECRET_KEY_FILE: path.join(root, 'secret.key') },
    checkIntervalMs: 1_000,
  });

  // A key for the person trying it, made in the shared database: every instance accepts it.
  const engine = await openPostgresDatabase({ url: databaseUrl.toString(), max: 1 });
  const { key } = await createKeysRepository(engine).create({
    name: 'team demo',
    group: 'default',
  });
  await engine.close();

  const lines = [
    '',
    `Atelier team gateway: ${INSTANCES} instances on PostgreSQL behind HAProxy (all on 127.0.0.1).`,
    '',
    `  balancer (send /v1 here):  ${team.balancer.url}/v1`,
    `  API key:                   ${key}`,
    `  PostgreSQL:                ${databaseUrl.toString()}`,
    ...team.instances.map(
      (instance) =>
        `  instance ${instance.index + 1}:               ${instance.url}  (${instance.dataDir})`,
    ),
    '',
    'Open the studio of instance 1 (one-time link, valid 10 minutes):',
    `  ${team.instances[0]?.studioLogin ?? '(the studio is not built: run npm run build)'}`,
    '',
    'Then send requests through the balancer; its usage page and live log show every instance:',
    `  curl -s ${team.balancer.url}/v1/images/generations -H "Authorization: Bearer ${key}" \\`,
    `    -H "Content-Type: application/json" -d '{"model":"image-model-2","prompt":"a kite","quality":"low"}' | head -c 200`,
    '',
    'Stop one instance to see HAProxy move work to the others:',
    `  kill ${team.instances[1]?.child.pid ?? ''}     (graceful: it drains)`,
    `  kill -9 ${team.instances[2]?.child.pid ?? ''}  (a crash: its requests are recorded by another instance)`,
    '',
    'Ctrl+C stops everything and removes the temp folder.',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
} catch (error) {
  await stopAll();
  refuse((error as Error).message);
}

let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (stopping) process.exit(130);
    stopping = true;
    process.stdout.write('\nstopping...\n');
    void stopAll().then(() => process.exit(0));
  });
}
