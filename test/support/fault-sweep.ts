/**
 * The fault-injection sweep with real processes: the real command line runs the suite's plan
 * (test/support/faults.ts) under `--debug-mode pause-at=STEP`, which stops it at the step until a
 * byte arrives on its stdin; meanwhile this side injects the fault from outside, as the world does:
 * a real signal to the runner's process group, the read end of its stdout or stderr closed, the disk
 * of its run folder filled up (a small tmpfs, root only), SIGKILL. Then the runner goes on, and the
 * case checks its exit code and what it left (and, after SIGKILL, that the next run cleans up).
 */
import { spawn, spawnSync } from 'node:child_process';
import {
  appendFileSync,
  closeSync,
  constants,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { RunStep } from '../../metrics/core/run-steps.ts';
import { expectedOf, FAULT_RUN_ARGS, FAULT_RUN_SAMPLES, violations, type Expected, type Fault } from './faults.ts';
import { CLI, groupAlive, processesWith, ROOT } from './helpers.ts';

/** How long a case may take before it counts as a hang (the runner is killed). */
const CASE_LIMIT_MS = 90_000;

export interface SweepCase {
  fault: Fault;
  step: RunStep;
}

export interface SweepOutcome extends SweepCase {
  exit: number | 'killed' | 'hung' | 'aborted';
  problems: string[];
}

/** A small tmpfs for the full-disk cases (root only): where the run folders go, and how to fill it. */
export class SmallDisk {
  readonly dir: string;
  constructor(base: string, name = 'disk') {
    this.dir = path.join(base, name);
    mkdirSync(this.dir, { recursive: true });
    const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', this.dir]);
    if (mounted.status !== 0) throw new Error(`cannot mount a tmpfs: ${mounted.stderr.toString()}`);
    // unmounted at exit too, should the suite end without its after() (a timeout, a failed hook)
    process.on('exit', () => this.unmount());
  }
  /** Write a filler file until the disk says ENOSPC. */
  fill(): void {
    const fd = openSync(path.join(this.dir, 'filler'), 'w');
    const chunk = Buffer.alloc(4096, 1);
    try {
      for (;;) writeSync(fd, chunk);
    } catch {
      // full
    } finally {
      closeSync(fd);
    }
  }
  empty(): void {
    for (const name of readdirSync(this.dir)) rmSync(path.join(this.dir, name), { recursive: true, force: true });
  }
  unmount(): void {
    spawnSync('umount', [this.dir]);
  }
}

/** The environment of the runner: this one without the CA bundle that costs every node start ~100 ms. */
function runnerEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env.NODE_EXTRA_CA_CERTS;
  return env;
}

/** The relay that puts one stream of the runner on a pseudo-terminal and hangs it up on SIGUSR1 (EIO). */
const PTY_BRIDGE = path.join(ROOT, 'test', 'support', 'pty-bridge.py');

/** Whether the EIO cases can run: python3 (its pty module) on PATH. */
export function ptyAvailable(): boolean {
  return spawnSync('python3', ['-c', 'import pty, termios'], { stdio: 'ignore' }).status === 0;
}

/** The file a full-stdout or full-stderr case writes the stream to, on the stream disk. */
function streamFile(streams: SmallDisk, fault: Fault): string {
  return path.join(streams.dir, `${fault}.out`);
}

/**
 * Inject `fault` into the paused runner. A full stream's file is first padded to a whole page, so that
 * no slack in its last page takes the next line once the disk is full.
 */
function inject(fault: Fault, child: ReturnType<typeof spawn>, disk: SmallDisk | undefined, streams: SmallDisk | undefined): void {
  if (fault === 'closed-stdout') child.stdout?.destroy();
  else if (fault === 'closed-stderr') child.stderr?.destroy();
  else if (fault === 'full-disk') disk?.fill();
  else if (fault === 'full-stdout' || fault === 'full-stderr') {
    const file = streamFile(streams!, fault);
    appendFileSync(file, Buffer.alloc((4096 - (statSync(file).size % 4096)) % 4096, 32));
    streams!.fill();
  } else if (fault === 'eio-stdout' || fault === 'eio-stderr') process.kill(child.pid!, 'SIGUSR1');
  else process.kill(-child.pid!, fault);
}

/** Start the runner paused at `step`, inject `fault` there, let it go on; its exit and stderr. */
function runCase(out: string, fault: Fault, step: RunStep, disk: SmallDisk | undefined, streams: SmallDisk | undefined) {
  const args = [...CLI, 'run', ...FAULT_RUN_ARGS, '--out', out, '--debug-mode', `pause-at=${step}`];
  const full = fault === 'full-stdout' || fault === 'full-stderr';
  // a full stream is a file of its own on the stream disk, appended to (this side pads it too)
  const fd = full ? openSync(streamFile(streams!, fault), constants.O_WRONLY | constants.O_CREAT | constants.O_APPEND) : undefined;
  const stdio: ('pipe' | number)[] = ['pipe', fault === 'full-stdout' ? fd! : 'pipe', fault === 'full-stderr' ? fd! : 'pipe'];
  const eio = fault === 'eio-stdout' || fault === 'eio-stderr';
  const child = eio
    ? spawn('python3', [PTY_BRIDGE, fault.slice(4), process.execPath, ...args], { cwd: ROOT, detached: true, stdio, env: runnerEnv() })
    : spawn(process.execPath, args, { cwd: ROOT, detached: true, stdio, env: runnerEnv() });
  if (fd !== undefined) closeSync(fd);
  let stderr = '';
  let injected = false;
  // the runner's own pid (under the pty relay, the relay's child), for its scratch folder's name
  let runnerPid = child.pid!;
  const onStderr = (text: string) => {
    stderr = text;
    if (injected || !stderr.includes(`coldstart: debug: at ${step}`)) return;
    injected = true;
    if (eio) runnerPid = Number(readFileSync(`/proc/${child.pid}/task/${child.pid}/children`, 'utf8').trim().split(/\s+/)[0]);
    inject(fault, child, disk, streams);
    // let the runner go on (after SIGKILL there is nobody to read it)
    if (fault !== 'SIGKILL') child.stdin!.end('go\n');
  };
  child.stdout?.on('data', () => undefined);
  child.stderr?.on('data', (chunk: Buffer) => onStderr(stderr + chunk.toString('utf8')));
  // stderr in a file: read it as it grows
  const poll =
    fault === 'full-stderr'
      ? setInterval(() => {
          if (!injected) onStderr(readFileSync(streamFile(streams!, fault), 'utf8'));
        }, 50)
      : undefined;
  child.stdin!.on('error', () => undefined);
  return new Promise<{ exit: number | 'killed' | 'hung' | 'aborted'; stderr: string; pid: number; runnerPid: number }>((resolve) => {
    let hung = false;
    const timer = setTimeout(() => {
      hung = true;
      process.kill(-child.pid!, 'SIGKILL');
    }, CASE_LIMIT_MS);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      clearInterval(poll);
      const exit = hung
        ? 'hung'
        : signal === 'SIGKILL'
          ? 'killed'
          : signal === 'SIGABRT' || signal === 'SIGSEGV'
            ? 'aborted'
            : (code ?? -1);
      if (fault === 'full-stderr') stderr = readFileSync(streamFile(streams!, fault), 'utf8');
      resolve({ exit, stderr, pid: child.pid!, runnerPid });
    });
  });
}

/**
 * What a real run may end with: a closed stream is found at the runner's next write to it, and a full
 * tmpfs may still take a line into a page it holds.
 */
function realExpected(fault: Fault, step: RunStep): Expected & { samplesUpTo: number; exits: (number | 'killed' | 'aborted')[] } {
  const expected = expectedOf(fault, step);
  // Node 20 aborts in its own exit (ResetStdio's tcsetattr on the hung-up terminal fails with EIO, which
  // it asserts cannot happen) after the runner has done everything; Node 22 and later exit 141
  const nodeAborts = fault.startsWith('eio-') && Number(process.versions.node.split('.')[0]) < 22 ? (['aborted'] as const) : [];
  if (fault === 'closed-stdout' || fault === 'full-stdout' || fault === 'eio-stdout') {
    // stdout gets only the last line: the run ends whole, and the lost line makes the exit 141 (the output is incomplete)
    return {
      ...expected,
      exit: 141,
      exits: [141, ...nodeAborts],
      samples: FAULT_RUN_SAMPLES,
      samplesUpTo: FAULT_RUN_SAMPLES,
      report: true,
      partial: false,
    };
  }
  if (fault === 'closed-stderr' || fault === 'full-stderr' || fault === 'eio-stderr') {
    // progress goes to stderr: the next line written is the interrupt, a sample or a note later
    return { ...expected, exits: [141, 0, ...nodeAborts], samplesUpTo: FAULT_RUN_SAMPLES, partial: undefined };
  }
  if (fault === 'full-disk') return { ...expected, exits: [expected.exit], samplesUpTo: FAULT_RUN_SAMPLES };
  return { ...expected, exits: [expected.exit], samplesUpTo: expected.samples };
}

/** Where a range of samples is allowed: the expectation settled on the run's own count (the report follows it; partial is not checked). */
function settle(dir: string, expected: ReturnType<typeof realExpected> & { fault: Fault }): Expected {
  if (expected.samplesUpTo === expected.samples) return expected;
  const file = path.join(dir, 'samples.jsonl');
  const lines = existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean).length : 0;
  if (lines < expected.samples || lines > expected.samplesUpTo) return expected;
  return { ...expected, samples: lines, report: expected.fault === 'full-disk' ? expected.report : lines > 0, partial: undefined };
}

/** One case of the sweep: the outcome and every problem found (none: it passed). */
export async function sweepOne(base: string, { fault, step }: SweepCase, disk?: SmallDisk, streams?: SmallDisk): Promise<SweepOutcome> {
  const out = path.join(fault === 'full-disk' && disk ? disk.dir : base, `${fault}-${step}`);
  const run = await runCase(out, fault, step, disk, streams);
  const expected = { ...realExpected(fault, step), fault };
  const problems: string[] = [];
  if (run.exit === 'hung') problems.push(`no end within ${CASE_LIMIT_MS / 1000} s`);
  else if (!expected.exits.includes(run.exit)) problems.push(`exit ${run.exit}, expected ${expected.exits.join(' or ')}`);
  if (groupAlive(run.pid)) problems.push('a process of the run is still alive');
  problems.push(...violations(out, run.stderr, settle(out, expected)));
  if (fault === 'SIGKILL') problems.push(...nextRunCleans(base, run.pid));
  if (fault !== 'SIGKILL' && run.exit !== 'hung') {
    const left = readdirSync(os.tmpdir()).filter((name) => name.startsWith(`coldstart-run-${run.runnerPid}.`));
    if (left.length > 0) problems.push(`its scratch folder is left: ${left.join(', ')}`);
  }
  if (disk) disk.empty();
  if (streams) streams.empty();
  return { fault, step, exit: run.exit, problems };
}

/** After SIGKILL: a new run removes the killed runner's scratch folder, saying so. */
function nextRunCleans(base: string, killed: number): string[] {
  const mine = () => readdirSync(os.tmpdir()).filter((name) => name.startsWith(`coldstart-run-${killed}.`));
  if (mine().length === 0) return [];
  const next = spawnSync(
    process.execPath,
    [...CLI, 'run', ...FAULT_RUN_ARGS, '--out', path.join(base, `after-${killed}`), '--debug-mode'],
    {
      cwd: ROOT,
      env: runnerEnv(),
      encoding: 'utf8',
      timeout: CASE_LIMIT_MS,
    },
  );
  const problems: string[] = [];
  if (mine().length > 0) problems.push('the next run left the killed runner’s scratch folder');
  if (!/removed|cleaned/i.test(next.stderr)) problems.push(`the next run did not say what it cleaned: ${next.stderr.slice(0, 300)}`);
  return problems;
}

/** The cases as a Markdown table, for the sweep's report. */
export function sweepTable(outcomes: readonly SweepOutcome[]): string {
  const rows = outcomes.map((o) => `| ${o.fault} | ${o.step} | ${o.exit} | ${o.problems.length === 0 ? 'ok' : o.problems.join('; ')} |`);
  return ['| fault | step | exit | result |', '| --- | --- | --- | --- |', ...rows].join('\n');
}

/**
 * Children that misbehave (test/fixtures/), each measured as the user's own app: whether their samples
 * fail, and whether a sample stays in flight (until the 3 s timeout) long enough to be interrupted.
 */
export const CHILD_FAULTS = [
  { fixture: 'crash.js', what: 'dies before it is ready', fails: true, stays: false },
  { fixture: 'hang.js', what: 'never ready, never exits', fails: true, stays: true },
  { fixture: 'garbage.js', what: 'a broken protocol line', fails: true, stays: false },
  { fixture: 'flood-line.js', what: 'a stdout line with no end (past the 1 MB bound)', fails: true, stays: false },
  { fixture: 'grandchild.js', what: 'forks a grandchild that ignores SIGTERM, then hangs', fails: true, stays: true },
  { fixture: 'daemonize-app.js', what: 'a correct app that leaves a daemon holding its pipes (setsid)', fails: false, stays: false },
] as const;
export type ChildFault = (typeof CHILD_FAULTS)[number];

const CHILD_SAMPLES = 2;

/**
 * One misbehaving child, measured twice with a 3 s timeout; with `signal`, the signal goes to the
 * runner's group while the second sample is in flight. The run must end with exit 3 (failed samples),
 * 0 (a correct server) or 128 + the signal, every finished sample recorded with its reason, the
 * report written, and no process of the child's left, the daemon and the grandchild included.
 */
export async function sweepChild(base: string, child: ChildFault, signal?: NodeJS.Signals): Promise<string[]> {
  const marker = `coldstart-sweep-${path.basename(child.fixture, '.js')}-${process.pid}-${signal ?? 'none'}`;
  const out = path.join(base, marker);
  const entry = `${path.join(ROOT, 'test', 'fixtures', child.fixture)} ${marker}`;
  const args = [...CLI, 'measure', '--entry', entry, '--samples', String(CHILD_SAMPLES), '--warmup', '0', '--timeout', '3', '--out', out];
  const runner = spawn(process.execPath, args, { cwd: ROOT, detached: true, stdio: ['ignore', 'ignore', 'pipe'], env: runnerEnv() });
  let stderr = '';
  runner.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const samplesFile = path.join(out, 'samples.jsonl');
  const lines = () => (existsSync(samplesFile) ? readFileSync(samplesFile, 'utf8').split('\n').filter(Boolean).length : 0);
  const poll = signal
    ? setInterval(() => {
        if (lines() < 1) return;
        clearInterval(poll);
        // the second sample has started: give the child a moment to misbehave, then signal
        setTimeout(() => process.kill(-runner.pid!, signal), 500);
      }, 50)
    : undefined;
  const exit = await new Promise<number | 'hung'>((resolve) => {
    const timer = setTimeout(() => {
      process.kill(-runner.pid!, 'SIGKILL');
      resolve('hung');
    }, CASE_LIMIT_MS);
    runner.on('exit', (code) => {
      clearTimeout(timer);
      clearInterval(poll);
      resolve(code ?? -1);
    });
  });
  const expectedExit = signal ? 128 + os.constants.signals[signal] : child.fails ? 3 : 0;
  const samples = signal ? 1 : CHILD_SAMPLES;
  const problems: string[] = [];
  if (exit !== expectedExit) problems.push(`exit ${exit}, expected ${expectedExit}`);
  problems.push(...violations(out, stderr, { exit: expectedExit, samples, report: true, partial: signal !== undefined, locked: false }));
  // the daemon and the grandchild may take a moment to be killed after the sample
  const deadline = Date.now() + 5000;
  while (processesWith(marker).length > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  const left = processesWith(marker);
  if (left.length > 0) problems.push(`${left.length} process(es) of the child left: ${left.join(', ')}`);
  return problems;
}
