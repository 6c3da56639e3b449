import { execFileSync } from 'node:child_process';
import type { TestProject } from 'vitest/node';
import { postgresUnavailable, startPostgres } from './postgres';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The test run's PostgreSQL (its maintenance database), or '' when it could not start. */
    postgresUrl: string;
    /** Why there is no PostgreSQL ('' when there is): the suites that need one fail with it. */
    postgresMissing: string;
  }
}

/**
 * The CLI tests run the bundled `atelier` command, exactly as `npx atelier` would; the storage
 * suites run on a private PostgreSQL started once for the run (test/support/postgres.ts).
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  execFileSync(process.execPath, ['scripts/build-node.mjs'], { stdio: 'inherit' });
  const missing = postgresUnavailable();
  if (missing) {
    // Only the suites that run on PostgreSQL need it; they fail with this reason.
    project.provide('postgresUrl', '');
    project.provide('postgresMissing', missing);
    return async () => {};
  }
  const server = await startPostgres();
  project.provide('postgresUrl', server.url);
  project.provide('postgresMissing', '');
  return () => server.stop();
}
