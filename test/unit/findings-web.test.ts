/**
 * The Web Functions finding (docs/findings/2026-12-05-lambda-web.md) against its run folders: its tables are
 * what report/web-finding.ts writes from results/published/2026-12-05-lambda-web (every framework at 1, 1,000
 * and 5,000 routes) and results/published/2026-12-05-lambda-web-large (fastify and hapi up to 40,000), and its
 * run facts (load, Node, the CPU ratio) are the runs' meta.json.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { webFindingTable } from '../../metrics/report/web-finding.ts';
import { webCpuRatio } from '../../metrics/report/web-functions.ts';
import { cpuSpeedsOf } from '../../metrics/calibration/lambda-cpu-reference.ts';
import { loadRun } from '../../metrics/report/write.ts';
import { ROOT } from '../support/in-process.ts';

const FINDING = path.join(ROOT, 'docs', 'findings', '2026-12-05-lambda-web.md');
const run = (name: string) => path.join(ROOT, 'results', 'published', name);

for (const name of ['2026-12-05-lambda-web', '2026-12-05-lambda-web-large']) {
  test(`the finding's table of ${name} is the one its run folder gives`, () => {
    const text = readFileSync(FINDING, 'utf8');
    assert.ok(text.includes(`results/published/${name}/`), `the finding links ${name}`);
    const table = webFindingTable(loadRun(run(name)));
    for (const line of table.split('\n')) assert.ok(text.includes(line), `the finding's line: ${line}`);
  });
}

test("the finding's machine facts are the run's", () => {
  const text = readFileSync(FINDING, 'utf8');
  const { meta } = loadRun(run('2026-12-05-lambda-web'));
  assert.ok(meta);
  assert.ok(text.includes(`Node ${meta.runtimes['nodejs24.x']}`), 'its Node');
  const ratio = webCpuRatio('nodejs24.x', cpuSpeedsOf(meta.lambda));
  assert.ok(ratio !== undefined && text.includes(`× ${ratio.toFixed(2)}`), `its CPU ratio × ${ratio?.toFixed(2)}`);
  const load = (meta as unknown as { load: { before: { load1: number }; during: { load1: { median: number } } } }).load;
  assert.ok(text.includes(`load ${load.before.load1.toFixed(2)} before`), 'its load before');
  assert.ok(text.includes(`median ${load.during.load1.median.toFixed(2)} during`), 'its load during');
});
