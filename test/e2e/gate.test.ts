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
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import { parse as parseYaml } from 'yaml';
import { findCountTools } from '../../metrics/measure/counting.ts';
import type { GateReport } from '../../metrics/pipeline/gate-verdict.ts';
import { ROOT, tempDir } from '../support/helpers.ts';

const skip = findCountTools() ? false : 'valgrind (and vgdb) not on PATH: apt-get install valgrind; gate tests skipped';
const TIMEOUT_MS = 900_000;

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

function git(cwd: string, ...args: string[]): string {
  const result = spawnSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=t', ...args], { cwd, encoding: 'utf8' });
  assert.equal(result.status, 0, result.stderr);
  return result.stdout.trim();
}

/** Every file under dir (its .git and node_modules included), hashed with its relative path. */
function hashTree(dir: string): string {
  const hash = createHash('sha256');
  const walk = (at: string) => {
    for (const entry of readdirSync(at, { withFileTypes: true }).sort((x, y) => x.name.localeCompare(y.name))) {
      const full = path.join(at, entry.name);
      hash.update(path.relative(dir, full) + '\0');
      if (entry.isDirectory()) walk(full);
      else if (entry.isFile()) hash.update(readFileSync(full));
    }
  };
  walk(dir);
  return hash.digest('hex');
}

interface Gate {
  status: number | null;
  stdout: string;
  stderr: string;
  report: GateReport;
  ms: number;
}

/** The gate step of action.yml: its `run:` line, run by bash as the runner runs it, with its env from the inputs. */
function actionGateCommand(): string {
  const action = parseYaml(readFileSync(path.join(ROOT, 'action.yml'), 'utf8')) as { runs: { steps: { id?: string; run?: string }[] } };
  const step = action.runs.steps.find((s) => s.id === 'gate');
  assert.ok(step?.run, 'action.yml has a gate step');
  return step.run;
}

function gate(cwd: string, out: string, base: string, env: NodeJS.ProcessEnv = {}, extra: string[] = []): Promise<Gate> {
  const started = Date.now();
  const [command, args] = env.GITHUB_OUTPUT
    ? ['bash', ['-e', '-c', actionGateCommand()]]
    : [process.execPath, [path.join(ROOT, 'bin', 'coldstart.js'), 'gate', '--base', base, '--entry', 'app.js', ...extra, '--out', out]];
  // the action's inputs, as the runner passes them to the step (its defaults for threshold and rounds)
  const inputs = { GITHUB_ACTION_PATH: ROOT, BASE: base, ENTRY: 'app.js', THRESHOLD: '0.2%', ROUNDS: '2', OUT: out };
  return new Promise((resolve) => {
    const child = spawn(command, args, {
      cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, GITHUB_STEP_SUMMARY: '', GITHUB_OUTPUT: '', ...inputs, ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGKILL'), TIMEOUT_MS);
    child.on('close', (status) => {
      clearTimeout(timer);
      let report = undefined as unknown as GateReport;
      try {
        report = JSON.parse(readFileSync(path.join(out, 'gate.json'), 'utf8')) as GateReport;
      } catch {
        // asserted below through the status and stderr
      }
      resolve({ status, stdout, stderr, report, ms: Date.now() - started });
    });
  });
}

describe('coldstart gate: base against head of a repository', { skip, timeout: TIMEOUT_MS }, () => {
  const gates: Record<string, Gate> = {};
  const hashes: Record<string, [string, string]> = {};
  let summaryFile = '';
  let outputFile = '';

  before(async () => {
    const root = tempDir('coldstart-gate-');
    const origin = path.join(root, 'origin');
    mkdirSync(origin);
    git(origin, 'init', '-q', '-b', 'main');
    writeFileSync(path.join(origin, 'app.js'), app(2000, 'the app'));
    writeFileSync(path.join(origin, '.gitignore'), 'node_modules/\n');
    git(origin, 'add', '.');
    git(origin, 'commit', '-qm', 'base');
    git(origin, 'branch', 'base');
    writeFileSync(path.join(origin, 'app.js'), app(2000, 'the app, its comment edited'));
    git(origin, 'commit', '-qam', 'comment');
    git(origin, 'branch', 'comment');
    git(origin, 'checkout', '-q', '--detach', 'base');
    // about 0.5 % more instructions to the first answer, all of it start-up work
    writeFileSync(path.join(origin, 'app.js'), app(2120, 'the app'));
    git(origin, 'commit', '-qam', 'more');
    git(origin, 'branch', 'more');
    const clone = (name: string, branch: string) => {
      const dir = path.join(root, name);
      git(root, 'clone', '-q', '-b', branch, origin, dir);
      if (branch !== 'base') git(dir, 'branch', '-q', 'base', 'origin/base');
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

  it('passes a commit that only edits a comment', () => {
    const { status, stdout, stderr } = gates.comment!;
    assert.equal(status, 0, stderr);
    assert.match(stdout, /^## Cold-start gate: \*\*PASS\*\*/);
    assert.doesNotMatch(stdout, /counted again/);
  });

  it('passes the same commit as base and head, with a noise floor reported; under --cache-sim, with estimated cycles', () => {
    const { status, stdout, stderr, report } = gates.same!;
    assert.equal(status, 0, stderr);
    assert.match(stdout, /Noise floor \(largest A\/A spread of a side\): \d+\.\d{3} %/);
    assert.equal(report.rounds, 2);
    for (const cell of report.cells) {
      assert.equal(cell.base.length, 2, 'two counts per side: a spread');
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
