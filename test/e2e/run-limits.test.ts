/**
 * --lambda-memory through the real command line and runner, on real cgroups: skipped, with the
 * reason, where this machine does not let the runner make them. A run records the mechanism and
 * each sample's limits and leaves no cgroup; a server that allocates past its memory size fails
 * with the out-of-memory reason; a run interrupted by SIGINT leaves no cgroup and no process.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import { contractOf } from '../../generators/contract.ts';
import { makeCell } from '../../metrics/core/cell.ts';
import type { SampleRecord } from '../../metrics/core/samples.ts';
import { readSamples } from '../../metrics/store/samples-file.ts';
import { childEnvironment } from '../../metrics/measure/environment.ts';
import { limitHooks } from '../../metrics/measure/limited.ts';
import { detectLimits } from '../../metrics/measure/limits/detect.ts';
import { liveCgroups } from '../../metrics/measure/limits/registry.ts';
import { limitSettings } from '../../metrics/measure/limits/settings.ts';
import { DEFAULT_SPEC } from '../../metrics/core/run-spec.ts';
import type { LimitsMechanism } from '../../metrics/measure/limits/types.ts';
import { runSample } from '../../metrics/measure/sample.ts';
import { CLI, FIXTURES, fixture, ROOT, tempDir, waitFor } from '../support/helpers.ts';

const detection = detectLimits();
const skip = detection.ok ? false : detection.reason;
const mechanism = detection.ok ? detection.mechanism : (undefined as unknown as LimitsMechanism);
const CGROUP_ROOT = '/sys/fs/cgroup';

/** Cgroup directories anywhere under /sys/fs/cgroup made by the runner with this pid (`coldstart-<pid>-<n>`). */
function cgroupsOf(pid: number, dir = CGROUP_ROOT, found: string[] = []): string[] {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return found;
  }
  for (const entry of entries) {
    if (!entry.isDirectory()) continue;
    const full = `${dir}/${entry.name}`;
    if (entry.name.startsWith(`coldstart-${pid}-`)) found.push(full);
    cgroupsOf(pid, full, found);
  }
  return found;
}

/** `pid`'s start time in clock ticks since boot (field 22 of /proc/<pid>/stat), undefined when it is gone or a zombie. */
function startTime(pid: number): string | undefined {
  try {
    const rest = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ').at(-1)!.split(' ');
    return rest[0] === 'Z' ? undefined : rest[19];
  } catch {
    return undefined;
  }
}

/** Direct children of `pid` now, each with its start time (to tell a reused pid from the same process). */
function childrenOf(pid: number): Map<number, string> {
  const found = new Map<number, string>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const rest = readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ').at(-1)!.split(' ');
      if (Number(rest[1]) === pid) found.set(Number(entry), rest[19]!);
    } catch {
      // gone while we looked
    }
  }
  return found;
}

interface Spawned {
  pid: number;
  status: number | null;
  stdout: string;
  stderr: string;
  /** every child of the CLI seen while it ran (the limits wrapper execs the runtime: same pid) */
  children: Map<number, string>;
}

/** Run the CLI, watching its children; `onStderr` may act on what it printed so far (e.g. send a signal). */
function spawnCli(args: string[], onStderr?: (text: string, pid: number) => void): Promise<Spawned> {
  const child = spawn(process.execPath, [...CLI, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  const pid = child.pid!;
  const seen = new Map<number, string>();
  const watch = setInterval(() => childrenOf(pid).forEach((start, p) => seen.set(p, start)), 10);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
    onStderr?.(stderr, pid);
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
  return new Promise((resolve) =>
    child.on('close', (status) => {
      clearTimeout(timer);
      clearInterval(watch);
      resolve({ pid, status, stdout, stderr, children: seen });
    }),
  );
}

/** Children of the CLI that still run (the same process: same pid and start time). */
function survivors(run: Spawned): number[] {
  return [...run.children].filter(([pid, start]) => startTime(pid) === start).map(([pid]) => pid);
}

describe('a real run with --lambda-memory, on real cgroups', { skip }, () => {
  let dir: string;
  let run: Spawned;
  let samples: SampleRecord[];

  before(async () => {
    dir = path.join(tempDir(), 'run');
    const args = [
      '--frameworks',
      'node-http',
      '--routes',
      '1',
      '--lambda-memory',
      '128,1024',
      '--samples',
      '1',
      '--target',
      'server,lambda',
      '--lambda-runtime',
      'node',
      '--lambda-bootstrap',
      'probe',
      '--file-cache',
      'warm',
      // the framework has nothing to initialise: its eager cells would be unsupported records
      '--init',
      'lazy',
    ];
    run = await spawnCli(['run', ...args, '--out', dir]);
    assert.equal(run.status, 0, run.stderr);
    samples = readSamples(path.join(dir, 'samples.jsonl'));
  });

  it('meta.json records the mechanism and the settings', () => {
    const meta = JSON.parse(readFileSync(path.join(dir, 'meta.json'), 'utf8')) as {
      spec: { cells: { memories: number[] }; limits: Record<string, unknown> };
    };
    assert.deepEqual(meta.spec.cells.memories, [128, 1024]);
    const limits = meta.spec.limits;
    assert.equal(limits.kind, mechanism.info.kind);
    assert.deepEqual(limits.parents, mechanism.info.parents);
    assert.equal(limits.initCpus, 2);
    assert.equal(limits.cpuPeriodUs, 100_000);
    assert.equal(limits.mbPerVcpu, 1769);
  });

  it('every sample ran at its cell memory size, under its limits', () => {
    const cells = new Set(samples.filter((s) => s.phase === 'sample').map((s) => `${s.cell.target}|${s.cell.memory}`));
    assert.deepEqual([...cells].sort(), ['lambda|1024', 'lambda|128', 'server|1024', 'server|128']);
    for (const s of samples) {
      const what = `${s.cell.target} ${s.cell.memory} MB ${s.phase} #${s.index}`;
      assert.equal(s.ok, true, `${what}: ${s.error ?? ''}`);
      assert.equal(s.limits?.memoryMB, s.cell.memory, what);
      assert.equal(s.limits.outOfMemory, false, what);
      assert.ok(s.limits.initCpuMs !== undefined && s.limits.initCpuMs > 0, `${what}: CPU time during INIT`);
    }
  });

  it('no cgroup of the run is left, and no process', () => {
    assert.deepEqual(cgroupsOf(run.pid), []);
    assert.ok(run.children.size > 0, 'the run had children');
    assert.deepEqual(survivors(run), []);
  });

  it('summary.md has the power-tuning section and chart-power-tuning.svg exists', () => {
    const md = readFileSync(path.join(dir, 'summary.md'), 'utf8');
    assert.match(md, /^## Power tuning: cold starts by Lambda memory size$/m);
    assert.match(md, new RegExp(`Each sample ran in its own cgroup \\(${mechanism.info.kind}\\)`));
    assert.match(md, /!\[power tuning\]\(chart-power-tuning\.svg\)/);
    assert.ok(existsSync(path.join(dir, 'chart-power-tuning.svg')));
    assert.match(readFileSync(path.join(dir, 'chart-power-tuning.svg'), 'utf8'), /^<svg /);
  });
});

describe('a sample past its memory size, through the runner', { skip }, () => {
  const sampleAt = (memoryMB: number) =>
    runSample(
      {
        cell: makeCell({ framework: 'fixture', variant: 'validated', routes: 1, memory: memoryMB }),
        launch: {
          command: process.execPath,
          args: [fixture('alloc-on-request.js'), '300'],
          cwd: FIXTURES,
          env: childEnvironment(process.env).env,
        },
        contract: contractOf({}),
        phase: 'sample',
        index: 1,
        timeoutMs: 20_000,
        checkInvalidBody: false,
        firstHits: 0,
      },
      limitHooks(mechanism.create(limitSettings(memoryMB, DEFAULT_SPEC.limits))),
    );
  let over: SampleRecord;
  let under: SampleRecord;

  before(async () => {
    over = await sampleAt(128);
    under = await sampleAt(1024);
  });

  it('300 MB at 128 MB: fails with "out of memory at 128 MB"', () => {
    assert.equal(over.ok, false);
    assert.equal(over.error, 'out of memory at 128 MB');
    assert.equal(over.limits?.outOfMemory, true);
    assert.equal(over.limits.memoryMB, 128);
  });

  it('the same at 1024 MB answers: the limit, not the fixture, failed it', () => {
    assert.equal(under.ok, true, under.error);
    assert.equal(under.limits?.outOfMemory, false);
    if (under.limits.peakBytes !== undefined) assert.ok(under.limits.peakBytes > 300 * 2 ** 20, `peak ${under.limits.peakBytes}`);
  });

  it('both cgroups are gone', () => {
    assert.deepEqual(liveCgroups(), []);
    assert.deepEqual(cgroupsOf(process.pid), []);
  });
});

describe('a run under limits interrupted by SIGINT', { skip }, () => {
  let run: Spawned;
  /** the CLI's children when the signal went (pid → start time): the sample that was running */
  let atSignal: Map<number, string> | undefined;

  before(async () => {
    const dir = path.join(tempDir(), 'run');
    // sequential: the first cell's "done" line comes while the second cell's samples are still to run
    const args = ['--frameworks', 'node-http', '--routes', '1', '--lambda-memory', '128,1024', '--samples', '8', '--order', 'sequential'];
    let seenDone = false;
    run = await spawnCli(['run', ...args, '--out', dir], (text, pid) => {
      if (seenDone || !/^done /m.test(text)) return;
      seenDone = true;
      // send it while a sample's child is alive (the next one starts as soon as the last is recorded)
      void waitFor(() => childrenOf(pid).size > 0, 2000, 5).then(() => {
        atSignal = childrenOf(pid);
        process.kill(pid, 'SIGINT');
      });
    });
  });

  it('exits 130 after the first cell, saying the results are partial', () => {
    assert.ok(atSignal, `no "done" line: ${run.stderr}`);
    assert.equal(run.status, 130, run.stderr);
    assert.match(run.stdout, /^interrupted; partial results in /);
  });

  it('leaves no cgroup and no process, the sample that was running included', async () => {
    assert.ok(atSignal && atSignal.size > 0, 'a sample was running when the signal went');
    assert.deepEqual(cgroupsOf(run.pid), []);
    assert.ok(await waitFor(() => survivors(run).length === 0, 2000), `left running: ${survivors(run).join(', ')}`);
    // the child that was running at the signal is gone too, even if the 10 ms watcher never saw it
    const running = [...atSignal].filter(([pid, start]) => startTime(pid) === start).map(([pid]) => pid);
    assert.deepEqual(running, [], `still running: ${running.join(', ')}`);
  });
});
