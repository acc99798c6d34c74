/**
 * `coldstart gate` end to end, for real (valgrind; skipped with the reason when it is absent). A test writes a
 * git repository holding an app (a node:http server whose start-up hashes a chain), then three commits on its
 * base: one that only edits a comment, one that adds about 0.5 % start-up work. Four gates, two at a time
 * (counts do not depend on the machine's load), each from its own clone: the added work fails (exit 1) naming
 * the phase, after a confirmation round; the comment passes; the same commit as base and head passes with a
 * noise floor reported; the added work gated from a clone at a much longer path gives the same verdict and
 * counts within the stated floor. The clone's files and node_modules are unchanged (hashed before and after),
 * and the first gate, run as action.yml's gate step (its `run:` line under bash, the inputs in its env), writes
 * $GITHUB_STEP_SUMMARY and $GITHUB_OUTPUT.
 */
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
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

const app = (rounds: number, comment: string) => `const http = require('node:http');
const { createHash } = require('node:crypto');
// ${comment}
let digest = '';
for (let i = 0; i < ${rounds}; i++) digest = createHash('sha256').update(digest + i).digest('hex');
http
  .createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end(digest.slice(0, 8));
  })
  .listen(Number(process.env.PORT || 3000));
`;

type Gate = GateRun;

function gate(cwd: string, out: string, base: string, env: NodeJS.ProcessEnv = {}, extra: string[] = []): Promise<Gate> {
  // the action's inputs, as the runner passes them to the step (its defaults for threshold and rounds)
  const inputs = { GITHUB_ACTION_PATH: ROOT, BASE: base, ENTRY: 'app.js', THRESHOLD: '0.2%', ROUNDS: '2', OUT: out };
  return runGateChild(cwd, out, ['--base', base, '--entry', 'app.js', ...extra], { ...inputs, ...env });
}

describe('coldstart gate: base against head of a repository', { skip, timeout: TIMEOUT_MS }, () => {
  const gates: Record<string, Gate> = {};
  const hashes: Record<string, [string, string]> = {};
  let summaryFile = '';
  let outputFile = '';

  before(async () => {
    const root = tempDir('coldstart-gate-');
    const origin = path.join(root, 'origin');
    // more: about 0.5 % more instructions to the first answer, all of it start-up work
    const texts = { base: app(2000, 'the app'), comment: app(2000, 'the app, its comment edited'), more: app(2120, 'the app') };
    writeGateRepo(origin, 'app.js', texts, { '.gitignore': 'node_modules/\n' });
    const clone = (name: string, branch: string) => {
      const dir = cloneBranch(root, origin, name, branch);
      // a node_modules of the user's, which the gate must leave alone
      mkdirSync(path.join(dir, 'node_modules', 'dep'), { recursive: true });
      writeFileSync(path.join(dir, 'node_modules', 'dep', 'index.js'), 'module.exports = 1;\n');
      return dir;
    };
    const dirs = {
      more: clone('more', 'more'),
      comment: clone('comment', 'comment'),
      same: clone('same', 'base'),
      far: clone(path.join('a-much-longer-folder-name-for-the-same-pair', 'and-deeper-still', 'more'), 'more'),
    };
    summaryFile = path.join(root, 'step-summary.md');
    outputFile = path.join(root, 'github-output');
    for (const [name, dir] of Object.entries(dirs)) hashes[name] = [hashTree(dir), ''];
    const out = (name: string) => path.join(root, 'out', name);
    const env = { GITHUB_STEP_SUMMARY: summaryFile, GITHUB_OUTPUT: outputFile };
    [gates.more, gates.comment] = await Promise.all([
      gate(dirs.more, out('more'), 'base', env),
      gate(dirs.comment, out('comment'), 'base'),
    ]);
    [gates.same, gates.far] = await Promise.all([
      gate(dirs.same, out('same'), 'HEAD', {}, ['--cache-sim']),
      gate(dirs.far, out('far'), 'base'),
    ]);
    for (const [name, dir] of Object.entries(dirs)) hashes[name]![1] = hashTree(dir);
  });

  it('fails a commit that adds about 0.5 % start-up work, names the phase, after counting it again', (t) => {
    const { status, stdout, stderr, report, ms } = gates.more!;
    t.diagnostic(`gate of the added work: ${Math.round(ms / 1000)} s wall, two gates at a time`);
    assert.equal(status, 1, stderr);
    assert.match(stdout.split('\n')[0]!, /^## Cold-start gate: \*\*FAIL\*\*: \d regression\(s\) in instructions: app startup \+0\.\d\d %/);
    assert.match(stdout, /counted again once on both sides/);
    assert.equal(report.rounds, 3);
    const total = report.cells.find((cell) => cell.phase === 'total')!;
    t.diagnostic(`total ${total.baseMedian} → ${total.headMedian} (${(total.change * 100).toFixed(3)} %), floor ${total.floor}`);
    assert.ok(total.change > 0.003 && total.change < 0.008, `about 0.5 %: ${total.change}`);
  });

  it('passes a commit that only edits a comment', () => assertCommentPasses(gates.comment!));

  it('passes the same commit as base and head, with a noise floor reported; under --cache-sim, with estimated cycles', () => {
    assertSamePasses(gates.same!);
    const { stdout, report } = gates.same!;
    for (const cell of report.cells) {
      // estimated cycles exceed the instructions they are made of (each miss adds 10 or 100)
      assert.ok(cell.cycles && cell.cycles.base.every((cycles, i) => cycles > cell.base[i]!), `${cell.phase}: cycles above instructions`);
    }
    assert.match(stdout, /\| base \(M cycles\) \| head \(M cycles\) \| cycles change \|/);
    assert.match(stdout, /✱ ≈ ms: the change in estimated cycles × 0\.12 ms per million/);
  });

  it('gives the same verdict from a folder at another path length, counts within the floor', () => {
    const [near, far] = [gates.more!, gates.far!];
    assert.equal(far.status, near.status, far.stderr);
    for (const cell of near.report.cells) {
      const other = far.report.cells.find((c) => c.phase === cell.phase)!;
      assert.equal(other.regressed, cell.regressed, cell.phase);
      // against the total's count: a phase's few thousand instructions of jitter are held to the whole
      const total = near.report.cells.find((c) => c.phase === 'total')!;
      const floor = Math.max(cell.threshold, 0.0015) * total.baseMedian;
      for (const side of ['baseMedian', 'headMedian'] as const)
        assert.ok(Math.abs(other[side] - cell[side]) <= floor, `${cell.phase} ${side}: ${cell[side]} vs ${other[side]}`);
    }
  });

  it('leaves the working folders unchanged (files, .git and node_modules hashed before and after)', () => {
    for (const [name, [before, after]] of Object.entries(hashes)) assert.equal(after, before, name);
  });

  it("run as action.yml's gate step, writes the PR comment to $GITHUB_STEP_SUMMARY and the key figures to $GITHUB_OUTPUT", () => {
    assert.equal(readFileSync(summaryFile, 'utf8'), gates.more!.stdout);
    assert.match(
      readFileSync(outputFile, 'utf8'),
      /^verdict=fail\nregressions=\d\nnoise-floor=0\.\d{6}\nworst-change=0\.\d{6}\nconfirmed=true\n$/,
    );
  });
});
