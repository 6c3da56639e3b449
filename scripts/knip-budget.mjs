// Part of `npm run lint`: the exports (values and types) that nothing in the shipped program
// imports, counted by `knip --production` (knip.json says where the program starts), held to the
// budget in knip-budget.json. The budget only goes down: more unused exports than it allows fail
// the lint; fewer pass and ask for the budget to be lowered to the new count, so the gain is kept.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const budgetFile = join(root, 'knip-budget.json');
const { unusedExports: budget } = JSON.parse(readFileSync(budgetFile, 'utf8'));

const knip = join(root, 'node_modules', 'knip', 'bin', 'knip.js');
const run = spawnSync(
  process.execPath,
  [knip, '--production', '--no-progress', '--reporter', 'json'],
  { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
);
let report;
try {
  report = JSON.parse(run.stdout);
} catch {
  // knip exits 1 when it finds anything; only output that is not its report is a failure to run.
  console.error(`knip did not report (exit ${run.status}):\n${run.stderr || run.stdout}`);
  process.exit(2);
}

const unused = report.issues.flatMap((issue) =>
  [...issue.exports, ...issue.types].map((item) => `${issue.file}: ${item.name}`),
);
const count = unused.length;
if (count > budget) {
  console.error(
    `knip: ${count} unused exports, over the budget of ${budget} (knip-budget.json). Remove the ` +
      'export (or the code) that nothing imports; `npx knip --production` lists them:',
  );
  for (const line of unused) console.error(`  ${line}`);
  process.exit(1);
}
if (count < budget) {
  console.log(
    `knip: ${count} unused exports, under the budget of ${budget}: lower "unusedExports" in ` +
      `knip-budget.json to ${count} so it stays there.`,
  );
} else {
  console.log(`knip: ${count} unused exports, at the budget.`);
}
