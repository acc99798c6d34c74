/**
 * What the gate's e2e tests share (test/e2e/gate*.test.ts): git in a repository a test writes, a folder's hash (to
 * show the gate left it as it was), action.yml's gate step as the runner runs it, and one gate run as a child, its
 * gate.json read back.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { findCountTools } from '../../metrics/measure/counting.ts';
import type { GateReport } from '../../metrics/pipeline/gate-verdict.ts';
import { ROOT } from './helpers.ts';

export const GATE_SKIP = findCountTools() ? false : 'valgrind (and vgdb) not on PATH: apt-get install valgrind; gate tests skipped';
export const GATE_TIMEOUT_MS = 900_000;

/** git with a fixed author, in `cwd`; its stdout, trimmed (a failure fails the test with git's stderr). */
export function git(cwd: string, ...args: string[]): string {
  const result = spawnSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=t', ...args], { cwd, encoding: 'utf8' });
  assert.equal(result.status, 0, result.stderr);
  return result.stdout.trim();
}

/** Every file under dir (its .git and node_modules included), hashed with its relative path. */
export function hashTree(dir: string): string {
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

/** The gate step of action.yml: its `run:` lines, run by bash as the runner runs them. */
export function actionGateCommand(): string {
  const action = parseYaml(readFileSync(path.join(ROOT, 'action.yml'), 'utf8')) as { runs: { steps: { id?: string; run?: string }[] } };
  const step = action.runs.steps.find((s) => s.id === 'gate');
  assert.ok(step?.run, 'action.yml has a gate step');
  return step.run;
}

export interface GateRun<R = GateReport> {
  status: number | null;
  stdout: string;
  stderr: string;
  /** OUT/gate.json (undefined when the gate wrote none: asserted through status and stderr) */
  report: R;
  out: string;
  ms: number;
}

/**
 * One gate from `cwd`: `coldstart gate ARGS --out OUT`, or, when `env` sets GITHUB_OUTPUT, action.yml's gate step
 * under bash with the action's inputs in `env`. GITHUB_STEP_SUMMARY and GITHUB_OUTPUT are empty unless `env` sets them.
 */
export function runGateChild<R = GateReport>(cwd: string, out: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<GateRun<R>> {
  const started = Date.now();
  const [command, argv] = env.GITHUB_OUTPUT
    ? ['bash', ['-e', '-c', actionGateCommand()]]
    : [process.execPath, [path.join(ROOT, 'bin', 'coldstart.js'), 'gate', ...args, '--out', out]];
  return new Promise((resolve) => {
    const child = spawn(command, argv, {
      cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, GITHUB_STEP_SUMMARY: '', GITHUB_OUTPUT: '', ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGKILL'), GATE_TIMEOUT_MS);
    child.on('close', (status) => {
      clearTimeout(timer);
      let report = undefined as unknown as R;
      try {
        report = JSON.parse(readFileSync(path.join(out, 'gate.json'), 'utf8')) as R;
      } catch {
        // asserted by the caller through the status and stderr
      }
      resolve({ status, stdout, stderr, report, out, ms: Date.now() - started });
    });
  });
}

/**
 * The gate tests' repository at `origin`: `files` and `file` at `texts.base` committed as branch `base`; then, on it,
 * branch `comment` (the file at `texts.comment`) and branch `more` (at `texts.more`).
 */
export function writeGateRepo(
  origin: string,
  file: string,
  texts: { base: string; comment: string; more: string },
  files: Record<string, string> = {},
): void {
  mkdirSync(origin, { recursive: true });
  git(origin, 'init', '-q', '-b', 'main');
  for (const [name, text] of Object.entries({ ...files, [file]: texts.base })) writeFileSync(path.join(origin, name), text);
  git(origin, 'add', '.');
  git(origin, 'commit', '-qm', 'base');
  git(origin, 'branch', 'base');
  writeFileSync(path.join(origin, file), texts.comment);
  git(origin, 'commit', '-qam', 'comment');
  git(origin, 'branch', 'comment');
  git(origin, 'checkout', '-q', '--detach', 'base');
  writeFileSync(path.join(origin, file), texts.more);
  git(origin, 'commit', '-qam', 'more');
  git(origin, 'branch', 'more');
}

/** A clone of `origin`'s `branch` at root/name, with a local `base` branch to gate against. */
export function cloneBranch(root: string, origin: string, name: string, branch: string): string {
  const dir = path.join(root, name);
  git(root, 'clone', '-q', '-b', branch, origin, dir);
  if (branch !== 'base') git(dir, 'branch', '-q', 'base', 'origin/base');
  return dir;
}

/** A gate of a commit that only edits a comment: a pass, with no confirmation round. */
export function assertCommentPasses({ status, stdout, stderr }: GateRun): void {
  assert.equal(status, 0, stderr);
  assert.match(stdout, /^## Cold-start gate: \*\*PASS\*\*/);
  assert.doesNotMatch(stdout, /counted again/);
}

/** A gate of one commit against itself: a pass in two rounds, every cell with two counts a side and a floor reported. */
export function assertSamePasses({ status, stdout, stderr, report }: GateRun): void {
  assert.equal(status, 0, stderr);
  assert.match(stdout, /Noise floor \(largest A\/A spread of a side\): \d+\.\d{3} %/);
  assert.equal(report.rounds, 2);
  for (const cell of report.cells) assert.equal(cell.base.length, 2, 'two counts per side: a spread');
}
