/**
 * bisect's search and its folder, with a planted count per release instead of runs: the release
 * order, the range, binary search in about log2(n) measurements, a skipped release stepped around
 * (and named when it could be the culprit), the state resumed after an interrupt, a state of another
 * bisect refused. The real runs (valgrind, npm) are test/e2e/versions.test.ts.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { bisectNext, compareVersions, versionRange, type BisectResult } from '../../metrics/analyse/bisect.ts';

import { ExitCodeError, UsageError } from '../../metrics/core/errors.ts';
import { parseVersions } from '../../metrics/core/parse.ts';
import { runBisect, stepsFor, STATE_FILE, type BisectDeps, type BisectOptions } from '../../metrics/pipeline/bisect.ts';

import { tempDir } from '../support/in-process.ts';
import { mainInProcess } from '../support/main-in-process.ts';
import { options, planted, RELEASES } from '../support/bisect-fixtures.ts';

describe('release order and range', () => {
  it('orders releases numerically, a pre-release before its release', () => {
    const sorted = ['5.0.0', '4.10.0', '4.9.1', '5.0.0-alpha.10', '5.0.0-alpha.2', '5.0.0-rc.1'].sort(compareVersions);
    assert.deepEqual(sorted, ['4.9.1', '4.10.0', '5.0.0-alpha.2', '5.0.0-alpha.10', '5.0.0-rc.1', '5.0.0']);
  });
  it('takes both ends, leaves pre-releases out unless asked, and keeps every step-th with both ends', () => {
    const all = ['4.0.0', '4.1.0', '5.0.0-rc.1', '5.0.0', '5.1.0', '6.0.0'];
    assert.deepEqual(versionRange(all, '4.1.0', '5.1.0', { pre: false, step: 1 }), ['4.1.0', '5.0.0', '5.1.0']);
    assert.deepEqual(versionRange(all, '4.1.0', '5.1.0', { pre: true, step: 1 }), ['4.1.0', '5.0.0-rc.1', '5.0.0', '5.1.0']);
    assert.deepEqual(versionRange(all, '4.0.0', '6.0.0', { pre: false, step: 2 }), ['4.0.0', '5.0.0', '6.0.0']);
    assert.equal(versionRange(all, '5.1.0', '4.0.0', { pre: false, step: 1 }), undefined);
    assert.equal(versionRange(all, '4.0.0', '9.0.0', { pre: false, step: 1 }), undefined);
  });
});

describe('--versions', () => {
  it('reads package@version, bare versions continuing it, further packages and repeated flags', () => {
    const first = parseVersions('fastify@4.28.1,5.6.1,@fastify/aws-lambda@5.0.0');
    assert.deepEqual(first, ['fastify@4.28.1', 'fastify@5.6.1', '@fastify/aws-lambda@5.0.0']);
    assert.deepEqual(parseVersions('express@4.21.2,5.1.0,fastify@5.6.1', first).slice(3), ['express@4.21.2', 'express@5.1.0']);
  });
  it('refuses a range, a tag or a bare version first, in one line', () => {
    for (const text of ['fastify@^4', 'fastify@latest', '4.28.1', 'fastify@4.28']) {
      assert.throws(
        () => parseVersions(text),
        (e: unknown) => e instanceof UsageError && !e.message.includes('\n'),
      );
    }
  });
});

describe('binary search', () => {
  for (const culprit of [RELEASES[1]!, RELEASES[7]!, RELEASES[13]!, RELEASES[19]!]) {
    it(`finds ${culprit} among ${RELEASES.length} releases in at most ${stepsFor(RELEASES.length)} measurements`, () => {
      const count = planted(RELEASES, culprit);
      const results: Record<string, BisectResult> = {};
      for (;;) {
        const next = bisectNext({ candidates: RELEASES, results, threshold: 0.01 });
        if (next.kind !== 'measure') {
          assert.deepEqual(next, { kind: 'found', culprit, lastGood: RELEASES[RELEASES.indexOf(culprit) - 1], between: [] });
          break;
        }
        assert.equal(results[next.candidate], undefined, 'never measured twice');
        results[next.candidate] = count(next.candidate);
      }
      assert.ok(Object.keys(results).length <= stepsFor(RELEASES.length), `${Object.keys(results).length} measurements`);
    });
  }
  it('steps around a skipped release, and names it when it could be the culprit', () => {
    const culprit = RELEASES[10]!;
    const count = planted(RELEASES, culprit, [RELEASES[9]!]);
    const results: Record<string, BisectResult> = {};
    let next = bisectNext({ candidates: RELEASES, results, threshold: 0.01 });
    while (next.kind === 'measure') {
      results[next.candidate] = count(next.candidate);
      next = bisectNext({ candidates: RELEASES, results, threshold: 0.01 });
    }
    assert.deepEqual(next, { kind: 'found', culprit, lastGood: RELEASES[8], between: [RELEASES[9]] });
  });
  it('says no change when the bad end is within the threshold', () => {
    const results: Record<string, BisectResult> = {
      [RELEASES[0]!]: { kind: 'measured', value: 1_000_000_000, phases: {} },
      [RELEASES[19]!]: { kind: 'measured', value: 1_005_000_000, phases: {} },
    };
    assert.equal(bisectNext({ candidates: RELEASES, results, threshold: 0.01 }).kind, 'no-change');
  });
});

describe('the bisect folder', () => {
  it('resumes an interrupted bisect without measuring a release twice, and reports the culprit with its phases', async () => {
    const dir = tempDir('coldstart-bisect-');
    const count = planted(RELEASES, RELEASES[13]!);
    const measured: string[] = [];
    const deps = (interruptAfter: number): BisectDeps => ({
      candidates: (o) => versionRange([...RELEASES, '3.0.0-rc.1'], o.good, o.bad, o),
      log: () => {},
      measure: (v) => {
        if (measured.length === interruptAfter) return Promise.reject(new Error('interrupted'));
        measured.push(v);
        return Promise.resolve(count(v));
      },
    });
    await assert.rejects(runBisect(options(dir), deps(3)), /interrupted/);
    const saved = JSON.parse(readFileSync(path.join(dir, STATE_FILE), 'utf8')) as { results: object; steps: string[] };
    assert.equal(Object.keys(saved.results).length, 3);
    const shares = (stepDir: string) =>
      path.basename(stepDir) === RELEASES[13]
        ? { fastify: 0.3, 'find-my-way': 0.25, avvio: 0.05 }
        : { fastify: 0.3, 'find-my-way': 0.1, avvio: 0.06 };
    const outcome = await runBisect(options(dir), { ...deps(Infinity), shares });
    assert.equal(outcome.measuredNow, measured.length - 3);
    assert.equal(new Set(measured).size, measured.length, 'no release measured twice');
    assert.deepEqual(outcome.verdict, { kind: 'found', culprit: RELEASES[13], lastGood: RELEASES[12], between: [] });
    const report = readFileSync(path.join(dir, 'bisect.md'), 'utf8');
    assert.match(report, new RegExp(`Culprit: fake@${RELEASES[13]!.replace(/\./g, '\\.')}`));
    assert.match(report, /\| import \| 100 \| 130 \| \+30\.00 % \|/);
    // the package whose share moved most comes first: find-my-way, +15 points
    const moved = report.slice(report.indexOf('## Packages whose share changed most'));
    assert.match(moved, /\| :-- \| --: \| --: \| --: \|\n\| find-my-way \| 10\.0 % \| 25\.0 % \| \+15\.0 \|/);
  });
  it('refuses a folder holding another bisect, and a long range without --yes', async () => {
    const dir = tempDir('coldstart-bisect-');
    const deps: BisectDeps = {
      candidates: (o) => versionRange(RELEASES, o.good, o.bad, o),
      log: () => {},
      measure: (v) => Promise.resolve(planted(RELEASES, RELEASES[5]!)(v)),
    };
    await runBisect(options(dir), deps);
    await assert.rejects(
      runBisect(options(dir, { threshold: 0.02 }), deps),
      (e: unknown) => e instanceof UsageError && /another bisect/.test(e.message),
    );
    const many = Array.from({ length: 40 }, (_, i) => `1.0.${i}`);
    const other = tempDir('coldstart-bisect-');
    const long = { ...deps, candidates: (o: BisectOptions) => versionRange(many, o.good, o.bad, o) };
    await assert.rejects(runBisect(options(other, { good: '1.0.0', bad: '1.0.39' }), long), /--yes/);
    assert.equal(existsSync(path.join(other, STATE_FILE)), false);
    const coarse = await runBisect(options(other, { good: '1.0.0', bad: '1.0.39', step: 2 }), long);
    assert.equal(coarse.candidates.length, 21);
  });
});

/** bisect.json as a test edits it */
type Edited = {
  candidates: unknown[];
  steps: unknown[];
  results: Record<string, { kind?: unknown; value?: unknown; reason?: unknown; phases?: Record<string, unknown> }>;
};

describe('bisect.json checked against its schema before it is used (issue 46, item 4)', () => {
  const deps: BisectDeps = {
    candidates: (o) => versionRange(RELEASES, o.good, o.bad, o),
    log: () => {},
    measure: (v) => Promise.resolve(planted(RELEASES, RELEASES[5]!)(v)),
  };
  /** a finished bisect's folder, then its bisect.json edited by `edit` */
  async function edited(edit: (state: Edited) => void): Promise<string> {
    const dir = tempDir('coldstart-bisect-state-');
    await runBisect(options(dir), deps);
    const file = path.join(dir, STATE_FILE);
    const state = JSON.parse(readFileSync(file, 'utf8')) as Edited;
    edit(state);
    writeFileSync(file, JSON.stringify(state));
    return dir;
  }
  const good = RELEASES[0]!;
  const cases: [string, (state: Edited) => void, string][] = [
    // was `internal error: v.toFixed is not a function`
    ['a string for a value', (s) => (s.results[good]!.value = 'fast'), `results."${good}".value: a number expected, found "fast"`],
    ['"NaN" for a value', (s) => (s.results[good]!.value = 'NaN'), `results."${good}".value: a number expected, found "NaN"`],
    ['null for a value', (s) => (s.results[good]!.value = null), `results."${good}".value: a number expected, found null`],
    // was a wrong culprit: every release under 1e308 was good
    [
      '1e308 for the good release',
      (s) => (s.results[good]!.value = 1e308),
      `results."${good}".value: a number from 0 to 1000000000000000 expected, found 1e+308`,
    ],
    [
      'a negative phase',
      (s) => (s.results[good]!.phases!.boot = -1),
      `results."${good}".phases.boot: a number from 0 to 1000000000000000 expected, found -1`,
    ],
    // was ESC ] 0 and BEL on the terminal
    [
      'a candidate with escape bytes',
      (s) => (s.candidates[1] = '2.0.1\u001b]0;owned\u0007'),
      'candidates[1]: a release or a commit (letters, digits, ".", "+", "_", "-"; at most 200) expected, found "2.0.1 ]0;owned "',
    ],
    [
      'a result of no candidate',
      (s) => (s.results['9.9.9'] = { kind: 'skipped', reason: 'x' }),
      'results."9.9.9": a result of a candidate expected, found an object',
    ],
    ['a step with no result', (s) => s.steps.push('2.3.3'), `steps[6]: a measured candidate (one with a result) expected, found "2.3.3"`],
    [
      'an unknown kind',
      (s) => (s.results[good] = { kind: 'good' }),
      `results."${good}".kind: a result ({"kind": "measured", "value", "phases"} or {"kind": "skipped", "reason"}) expected, found "good"`,
    ],
  ];
  for (const [what, edit, field] of cases) {
    it(`${what}: one line naming the file and the field (exit 2)`, async () => {
      const dir = await edited(edit);
      const logged: string[] = [];
      await assert.rejects(runBisect(options(dir), { ...deps, log: (line) => logged.push(line) }), (e: unknown) => {
        assert.ok(e instanceof UsageError, String(e));
        assert.equal(
          e.message,
          `${path.join(dir, STATE_FILE)}: ${field}: the file was edited or is not one this tool wrote (repair or remove it)`,
        );
        return true;
      });
      assert.deepEqual(logged, [], 'nothing logged before the state was checked');
    });
  }
  it('on the command line: exit 2 and one line on stderr, with the escape bytes of a candidate shown as spaces', async () => {
    const dir = tempDir('coldstart-bisect-state-cli-');
    const from = tempDir('coldstart-bisect-state-from-');
    const state = {
      version: 1,
      identity: {},
      candidates: ['4.0.0', '4.1.0\u001b]0;owned\u0007'],
      results: { '4.0.0': { kind: 'measured', value: 'NaN', phases: {} } },
      steps: ['4.0.0'],
    };
    writeFileSync(path.join(dir, STATE_FILE), JSON.stringify(state));
    const args = ['bisect', '--package', 'fastify', '--range', '4.0.0..4.1.0', '--from', from, '-f', 'fastify', '--out', dir];
    const result = await mainInProcess(args);
    assert.equal(result.code, 2, result.stderr);
    assert.equal(
      result.stderr,
      `coldstart: ${path.join(dir, STATE_FILE)}: candidates[1]: a release or a commit (letters, digits, ".", "+", "_", "-"; ` +
        'at most 200) expected, found "4.1.0 ]0;owned ": the file was edited or is not one this tool wrote (repair or remove it)\n',
    );
    assert.equal(result.stdout, '');
  });
  it('text that is not JSON is one line too (it was taken for no state and overwritten)', async () => {
    const dir = tempDir('coldstart-bisect-state-');
    writeFileSync(path.join(dir, STATE_FILE), '{"version": 1, "candi');
    await assert.rejects(
      runBisect(options(dir), deps),
      (e: unknown) => e instanceof UsageError && /bisect\.json is not valid JSON/.test(e.message),
    );
    assert.equal(readFileSync(path.join(dir, STATE_FILE), 'utf8'), '{"version": 1, "candi');
  });
});

describe('an interrupted step is never a result (issue 46, item 4b)', () => {
  it('is not logged good or bad, not saved, exits 130, and the resume measures it again', async () => {
    const dir = tempDir('coldstart-bisect-');
    const count = planted(RELEASES, RELEASES[13]!);
    const measured: string[] = [];
    const logged: string[] = [];
    let interruptAt: number | undefined = 2;
    const deps: BisectDeps = {
      candidates: (o) => versionRange(RELEASES, o.good, o.bad, o),
      log: (line) => logged.push(line),
      measure: (v) => {
        measured.push(v);
        if (measured.length === interruptAt) return Promise.resolve({ kind: 'interrupted', exitCode: 130 });
        return Promise.resolve(count(v));
      },
    };
    await assert.rejects(runBisect(options(dir), deps), (e: unknown) => {
      assert.ok(e instanceof ExitCodeError && e.exitCode === 130, String(e));
      assert.equal(e.message, `interrupted during fake@${RELEASES[19]}: not a result; the same command resumes and measures it again`);
      return true;
    });
    const interrupted = measured[1]!;
    assert.deepEqual(
      logged.filter((line) => line.startsWith('step ')),
      [`step 1: fake@${RELEASES[0]} 1,000,000,000 instructions`],
    );
    const saved = JSON.parse(readFileSync(path.join(dir, STATE_FILE), 'utf8')) as { results: object; steps: string[] };
    assert.deepEqual(saved.steps, [RELEASES[0]]);
    assert.ok(!(interrupted in saved.results));
    interruptAt = undefined;
    const outcome = await runBisect(options(dir), deps);
    assert.equal(measured[2], interrupted, 'the resume measures the interrupted step first');
    assert.deepEqual(outcome.verdict, { kind: 'found', culprit: RELEASES[13], lastGood: RELEASES[12], between: [] });
  });
  it('a step an older bisect recorded though its run folder says interrupted is measured again on resume', async () => {
    const dir = tempDir('coldstart-bisect-');
    const count = planted(RELEASES, RELEASES[13]!);
    const measured: string[] = [];
    const logged: string[] = [];
    const deps: BisectDeps = {
      candidates: (o) => versionRange(RELEASES, o.good, o.bad, o),
      log: (line) => logged.push(line),
      measure: (v) => {
        measured.push(v);
        // the old bisect's step 2: 2 samples of an interrupted run, a value like the good end's ("good")
        return Promise.resolve(measured.length === 2 ? count(RELEASES[0]!) : count(v));
      },
    };
    const first = await runBisect(options(dir), { ...deps, interrupted: () => false });
    assert.equal(first.verdict.kind, 'no-change', 'the interrupted step, taken as a result, hid the regression');
    const bad = RELEASES[19]!;
    const outcome = await runBisect(options(dir), { ...deps, interrupted: (stepDir) => path.basename(stepDir) === bad });
    assert.ok(logged.includes(`fake@${bad}: the step's run was interrupted: measured again`), logged.join('\n'));
    assert.equal(measured.filter((v) => v === bad).length, 2);
    assert.deepEqual(outcome.verdict, { kind: 'found', culprit: RELEASES[13], lastGood: RELEASES[12], between: [] });
  });
  it('a step recorded as skipped (no sample) whose run folder says interrupted is measured again too', async () => {
    const dir = tempDir('coldstart-bisect-');
    const count = planted(RELEASES, RELEASES[13]!);
    const bad = RELEASES[19]!;
    let first = true;
    const measured: string[] = [];
    const deps: BisectDeps = {
      candidates: (o) => versionRange(RELEASES, o.good, o.bad, o),
      log: () => {},
      measure: (v) => {
        measured.push(v);
        // the old bisect: the bad end interrupted before its first sample, recorded as skipped
        return Promise.resolve(first && v === bad ? { kind: 'skipped', reason: 'did not answer right: no sample' } : count(v));
      },
    };
    const before = await runBisect(options(dir), { ...deps, interrupted: () => false });
    assert.equal(before.verdict.kind, 'failed', 'a skipped bad end gave no verdict');
    first = false;
    const outcome = await runBisect(options(dir), { ...deps, interrupted: (stepDir) => path.basename(stepDir) === bad });
    assert.equal(measured.filter((v) => v === bad).length, 2);
    assert.deepEqual(outcome.verdict, { kind: 'found', culprit: RELEASES[13], lastGood: RELEASES[12], between: [] });
  });
});
