/**
 * `verify` with what is installed (issue 51): mion is not on the registry, so a machine without it must
 * still verify every other claim of a published run. Each published run's verification is planned here
 * with the packages this machine has: a framework that is not installed is skipped with its install hint,
 * its cells are never planned, and the floor is chosen among the installed frameworks; the runs verify
 * refuses by design (the user's own apps, only the floor) are refused for that reason, never for a missing
 * package. Two runs with mion are verified whole with --debug-mode (the fake sampler): no exit 2, and the
 * skip is said on the terminal and in verify.md.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { resolvesPackage } from '../../generators/registry.ts';
import { UsageError } from '../../metrics/core/errors.ts';
import { EXIT_CODES } from '../../metrics/core/exit-codes.ts';
import { PROJECT_ROOT } from '../../metrics/core/paths.ts';
import { installedPlan, QUICK_VERIFY_SAMPLES, verifySpec } from '../../metrics/pipeline/verify.ts';
import { loadRun } from '../../metrics/report/write.ts';
import { tempDir } from '../support/in-process.ts';
import { mainInProcess } from '../support/main-in-process.ts';

const PUBLISHED = path.join(PROJECT_ROOT, 'results', 'published');
const MION_ABSENT = !resolvesPackage('@mionkit/router');
/** verify's refusals by design: none is about a package */
const BY_DESIGN = /measured the user's own apps|holds figures imported from AWS|the slice holds only the floor/;

describe('verify with what is installed', { skip: !MION_ABSENT && 'mion is installed here' }, () => {
  it('plans every published run with mion absent: its claims skipped with the reason, the rest planned', async () => {
    const planned: string[] = [];
    for (const name of readdirSync(PUBLISHED)) {
      const dir = path.join(PUBLISHED, name);
      const run = loadRun(dir);
      const frameworks = new Set([...run.summaries, ...run.counted].map((s) => s.cell.framework));
      try {
        const { plan, skipped } = await installedPlan(run.summaries, run.counted, { published: dir, command: 'verify' });
        planned.push(name);
        assert.ok(plan.cells.length >= 2, name);
        for (const cell of plan.cells) assert.ok(!skipped.has(cell.framework), `${name}: ${cell.framework} planned though skipped`);
        assert.equal(skipped.has('mion'), frameworks.has('mion'), name);
        if (skipped.has('mion')) assert.match(skipped.get('mion')!, /@mionkit\/router, which is not installed/);
      } catch (error) {
        assert.ok(error instanceof UsageError, `${name}: ${String(error)}`);
        assert.match(error.message, BY_DESIGN, name);
      }
    }
    // the seed table and the node lines (mion its floor) among them
    for (const name of ['2026-11-27-seed-table', '2026-11-27-seed-node-lines', '2026-11-27-lambda'])
      assert.ok(planned.includes(name), `${name} was not planned`);
  });

  for (const name of ['2026-11-27-seed-table', '2026-11-27-seed-node-lines']) {
    it(`verify ${name} --debug-mode: mion skipped with the reason, the rest verified (exit 0 or 1, not 2)`, async () => {
      const out = path.join(tempDir(), 'verify');
      const result = await mainInProcess(['verify', path.join(PUBLISHED, name), '--debug-mode', '--samples', '2', '--out', out]);
      assert.ok(([EXIT_CODES.OK.code, EXIT_CODES.VERDICT.code] as number[]).includes(result.code), `exit ${result.code}: ${result.stderr}`);
      assert.match(result.stdout, /^mion: skipped, its claims not verified \(mion needs @mionkit\/router, which is not installed/m);
      assert.match(result.stdout, /\d+ of \d+ claims hold here/);
      assert.doesNotMatch(result.stdout, /^mion@/m);
      assert.match(readFileSync(path.join(out, 'verify.md'), 'utf8'), /^- mion: skipped, mion needs @mionkit\/router/m);
    });
  }

  it('--quick: the floor and each framework at its largest route count only, at QUICK_VERIFY_SAMPLES samples a cell', async () => {
    const dir = path.join(PUBLISHED, '2026-11-27-seed-table');
    const run = loadRun(dir);
    const full = (await installedPlan(run.summaries, run.counted, { published: dir, command: 'verify' })).plan;
    const options = { published: dir, command: 'verify', quick: true };
    const quick = (await installedPlan(run.summaries, run.counted, options)).plan;
    const frameworks = new Set(full.cells.map((c) => c.framework));
    assert.equal(quick.cells.length, frameworks.size + 1, 'the floor and one cell a framework');
    for (const cell of quick.cells.filter((c) => c !== quick.floor && c.routes !== quick.floor.routes))
      assert.equal(cell.routes, Math.max(...full.cells.filter((c) => c.framework === cell.framework).map((c) => c.routes)));
    assert.ok(quick.cells.length < full.cells.length);
    assert.equal(verifySpec(undefined, quick.floor, quick.cells, options).sampling.samples, QUICK_VERIFY_SAMPLES);
  });
});
