/**
 * `coldstart gate -f fastify --framework-from .` end to end, for real (valgrind; skipped with the reason when it is
 * absent): the gate of a framework's own repository. A test writes a git repository holding a small package named
 * `fastify` (a wrapper of the installed fastify, as a fork would be; no dependencies, so no registry), then two
 * commits on its base: one that only edits a comment, one whose factory does about 0.5 % more work (route
 * registration's phase). Each gate packs the package at each side and installs it as a version, then counts the
 * generated fastify cell at 1 route: the added work fails (exit 1) naming `registration`, after a confirmation round
 * (run as action.yml's gate step, with $GITHUB_STEP_SUMMARY and $GITHUB_OUTPUT set to files); the comment passes; the
 * same commit on both sides passes with a noise floor reported. The clones are unchanged (hashed before and after).
 * A package that the named framework's cells do not load, -f without --framework-from, and a folder outside the
 * repository are refused in one line, exit 2, before anything is exported.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import { ROOT, tempDir } from '../support/helpers.ts';
import {
  assertCommentPasses,
  assertSamePasses,
  cloneBranch,
  GATE_SKIP as skip,
  GATE_TIMEOUT_MS as TIMEOUT_MS,
  hashTree,
  runGateChild,
  writeGateRepo,
  type GateRun,
} from '../support/gate.ts';
const FASTIFY = path.join(ROOT, 'node_modules', 'fastify');

/** The package: the installed fastify under its own folder, its factory doing `work` rounds of arithmetic first. */
const wrapper = (work: number, comment: string) => `'use strict';
// ${comment}
const real = require(${JSON.stringify(FASTIFY)});
function spin(n) { let x = 0; for (let i = 0; i < n; i++) x = (x * 31 + i) % 1000003; return x; }
function Fastify(options) {
  globalThis.__spun = spin(${work});
  return real(options);
}
module.exports = Object.assign(Fastify, real, { default: Fastify, fastify: Fastify });
`;

type Gate = GateRun;
const gate = (cwd: string, out: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<Gate> => runGateChild(cwd, out, args, env);

describe("coldstart gate --framework-from: a framework's own repository", { skip, timeout: TIMEOUT_MS }, () => {
  const gates: Record<string, Gate> = {};
  const hashes: Record<string, [string, string]> = {};
  const dirs: Record<string, string> = {};
  let root = '';
  let summaryFile = '';
  let outputFile = '';
  const out = (name: string) => path.join(root, 'out', name);
  const cells = ['-f', 'fastify', '-r', '1', '--framework-from', '.'];

  before(async () => {
    root = tempDir('coldstart-gate-framework-');
    const origin = path.join(root, 'origin');
    const version = (JSON.parse(readFileSync(path.join(FASTIFY, 'package.json'), 'utf8')) as { version: string }).version;
    const manifest = `${JSON.stringify({ name: 'fastify', version, main: 'index.js', license: 'MIT' })}\n`;
    // more: about 0.5 % more instructions to the first answer of fastify at 1 route, all of it in the factory's call
    const texts = {
      base: wrapper(0, 'the package'),
      comment: wrapper(0, 'the package, its comment edited'),
      more: wrapper(40_000, 'the package'),
    };
    writeGateRepo(origin, 'index.js', texts, { 'package.json': manifest });
    const clone = (name: string, branch: string) => cloneBranch(root, origin, name, branch);
    Object.assign(dirs, { more: clone('more', 'more'), comment: clone('comment', 'comment'), same: clone('same', 'base') });
    summaryFile = path.join(root, 'step-summary.md');
    outputFile = path.join(root, 'github-output');
    for (const [name, dir] of Object.entries(dirs)) hashes[name] = [hashTree(dir), ''];
    // the action's inputs, as the runner passes them to its gate step (its defaults for threshold, rounds, framework-from)
    const action = {
      GITHUB_ACTION_PATH: ROOT,
      BASE: 'base',
      ENTRY: '',
      FRAMEWORKS: 'fastify',
      ROUTES: '1',
      FRAMEWORK_FROM: '.',
      THRESHOLD: '0.2%',
      ROUNDS: '2',
      OUT: out('more'),
      GITHUB_STEP_SUMMARY: summaryFile,
      GITHUB_OUTPUT: outputFile,
    };
    [gates.more, gates.comment] = await Promise.all([
      gate(dirs.more!, out('more'), [], action),
      gate(dirs.comment!, out('comment'), ['--base', 'base', ...cells]),
    ]);
    gates.same = await gate(dirs.same!, out('same'), ['--base', 'HEAD', ...cells]);
    for (const [name, dir] of Object.entries(dirs)) hashes[name]![1] = hashTree(dir);
  });

  it('fails a commit whose factory does about 0.5 % more work, naming registration, after counting it again', (t) => {
    const { status, stdout, stderr, report, ms } = gates.more!;
    t.diagnostic(`gate of the added work: ${Math.round(ms / 1000)} s wall, two gates at a time`);
    assert.equal(status, 1, stderr);
    assert.match(
      stdout.split('\n')[0]!,
      /^## Cold-start gate: \*\*FAIL\*\*: \d regression\(s\) in instructions: fastify 1 registration \+\d\.\d\d %/,
    );
    assert.match(stdout, /counted again once on both sides/);
    assert.match(stdout, /Generated cells with `fastify` packed from `\.` of each commit, at `fastify@\d+\.\d+\.\d+` on both sides\./);
    assert.equal(report.rounds, 3);
    assert.deepEqual(
      report.cells.map((cell) => cell.phase),
      ['boot', 'import', 'registration', 'listen', 'firstRequest', 'total'],
    );
    const byPhase = Object.fromEntries(report.cells.map((cell) => [cell.phase, cell]));
    t.diagnostic(`total ${byPhase.total!.baseMedian} → ${byPhase.total!.headMedian} (${(byPhase.total!.change * 100).toFixed(3)} %)`);
    assert.ok(byPhase.total!.change > 0.003 && byPhase.total!.change < 0.008, `about 0.5 %: ${byPhase.total!.change}`);
    assert.equal(byPhase.registration!.regressed, true);
    // the work is in the factory's call, not in the package's import
    assert.equal(byPhase.import!.regressed, false);
  });

  it("run as action.yml's gate step with the framework inputs, writes $GITHUB_STEP_SUMMARY and $GITHUB_OUTPUT", () => {
    assert.equal(readFileSync(summaryFile, 'utf8'), gates.more!.stdout);
    assert.match(
      readFileSync(outputFile, 'utf8'),
      /^verdict=fail\nregressions=\d\nnoise-floor=0\.\d{6}\nworst-change=0\.\d{6}\nconfirmed=true\n$/,
    );
  });

  it('passes a commit that only edits a comment', () => assertCommentPasses(gates.comment!));

  it('passes the same commit as base and head, with a noise floor reported', () => {
    assertSamePasses(gates.same!);
    // both sides counted with V8's major GC in one pause (--atomic-gc), as each round's meta.json records
    for (const round of ['base-1', 'head-2']) {
      const meta = JSON.parse(readFileSync(path.join(out('same'), round, 'meta.json'), 'utf8')) as { spec: { countFlags: string[] } };
      assert.ok(meta.spec.countFlags.includes('--no-incremental-marking'), `${round}: ${meta.spec.countFlags.join(' ')}`);
    }
  });

  it('leaves the working folders unchanged (files and .git hashed before and after)', () => {
    for (const [name, [before, after]] of Object.entries(hashes)) assert.equal(after, before, name);
  });

  it('refuses, in one line and exit 2, a package the cells do not load, -f alone, -f with --entry, a folder outside', async () => {
    const refusals: [string[], RegExp][] = [
      [['-f', 'express', '--framework-from', '.'], /^coldstart: --framework-from: express's cells do not load fastify \(they load express/],
      [['-f', 'fastify'], /^coldstart: gate: -f needs --framework-from/],
      [
        ['-f', 'fastify', '--framework-from', '.', '--entry', 'index.js'],
        /^coldstart: gate: an app \(--entry, --handler\) or generated cells/,
      ],
      [['-f', 'fastify', '--framework-from', '..'], /^coldstart: --framework-from \.\. is outside the repository\n$/],
      [['-f', 'all', '--framework-from', '.'], /^coldstart: gate: -f all: name the frameworks/],
    ];
    for (const [args, message] of refusals) {
      const refused = await gate(dirs.same!, out('refused'), ['--base', 'base', ...args]);
      assert.equal(refused.status, 2, `${args.join(' ')}: ${refused.stderr}`);
      assert.equal(refused.stderr.trim().split('\n').length, 1, refused.stderr);
      assert.match(refused.stderr, message);
    }
  });
});
