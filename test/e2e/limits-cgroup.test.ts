/**
 * The limits on real cgroups: skipped, with the reason, where this machine does not let the runner
 * make them (not root, no delegated cgroup v2 subtree). Durations are only compared with each other.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { after, describe, it } from 'node:test';
import { stopGroup, track } from '../../metrics/measure/children.ts';
import { childEnvironment } from '../../metrics/measure/environment.ts';
import { detectLimits } from '../../metrics/measure/limits/detect.ts';
import { liveCgroups } from '../../metrics/measure/limits/registry.ts';
import { limitSettings } from '../../metrics/measure/limits/settings.ts';
import { DEFAULT_SPEC } from '../../metrics/core/run-spec.ts';
import { LimitsError, type LimitsMechanism, type SampleLimits } from '../../metrics/measure/limits/types.ts';
import { fixture, processesWith, ROOT, waitFor } from '../support/helpers.ts';

const detection = detectLimits();
const skip = detection.ok ? false : detection.reason;
const mechanism = detection.ok ? detection.mechanism : (undefined as unknown as LimitsMechanism);

/** Every directory a sample made: one per hierarchy (v1) or one (v2). */
function dirsOf(limits: SampleLimits): string[] {
  return Object.values(mechanism.info.parents).map((parent) => `${parent}/${limits.name}`);
}

/** The CPU quota the kernel holds for the sample, µs per period. */
function quotaOf(limits: SampleLimits): { quota: number; period: number } {
  const { parents } = mechanism.info;
  if (mechanism.info.kind === 'cgroup-v2') {
    const [quota, period] = readFileSync(`${parents.unified}/${limits.name}/cpu.max`, 'utf8').trim().split(' ');
    return { quota: Number(quota), period: Number(period) };
  }
  const dir = `${parents.cpu}/${limits.name}`;
  const read = (file: string) => Number(readFileSync(`${dir}/${file}`, 'utf8'));
  return { quota: read('cpu.cfs_quota_us'), period: read('cpu.cfs_period_us') };
}

/** Sample cgroups of this test process still on disk, anywhere under the mechanism's parents. */
function leftovers(): string[] {
  const mine = new RegExp(`^coldstart-${process.pid}-\\d+$`);
  return Object.values(mechanism.info.parents).flatMap((parent) =>
    readdirSync(parent)
      .filter((entry) => mine.test(entry))
      .map((entry) => `${parent}/${entry}`),
  );
}

function start(limits: SampleLimits, command: string, args: string[], stdin = false): ChildProcess {
  const launch = limits.wrap({ command, args });
  const stdio = [stdin ? 'pipe' : 'ignore', 'pipe', 'pipe'] as const;
  const child = spawn(launch.command, launch.args, { detached: true, stdio: [...stdio], env: childEnvironment().env });
  track(child);
  return child;
}

/** Resolve with the first stdout line matching `pattern` (rejects on exit or after `ms`). */
function line(child: ChildProcess, pattern: RegExp, ms = 10_000): Promise<string> {
  return new Promise((resolve, reject) => {
    let buffered = '';
    const timer = setTimeout(() => done(new Error(`no line matching ${pattern} within ${ms} ms: ${buffered}`)), ms);
    const onData = (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      const found = buffered.split('\n').find((l) => pattern.test(l));
      if (found !== undefined) done(undefined, found);
    };
    const onExit = () => done(new Error(`exited before a line matching ${pattern}: ${buffered}`));
    const done = (error?: Error, value?: string) => {
      clearTimeout(timer);
      child.stdout!.off('data', onData);
      child.off('exit', onExit);
      if (error) reject(error);
      else resolve(value!);
    };
    child.stdout!.on('data', onData);
    child.once('exit', onExit);
  });
}

function exited(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string }> {
  let stdout = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  return new Promise((resolve) => child.once('close', (code, signal) => resolve({ code, signal, stdout })));
}

describe('limits on real cgroups', { skip }, () => {
  after(() => {
    assert.deepEqual(liveCgroups(), [], 'every sample cgroup was torn down');
    assert.deepEqual(leftovers(), []);
  });

  it('setup makes one cgroup per hierarchy with the limits set, teardown removes them all', async () => {
    const limits = mechanism.create(limitSettings(512, { initCpus: 2, cpuPeriodUs: 50_000 }));
    assert.match(limits.name, new RegExp(`^coldstart-${process.pid}-\\d+$`));
    for (const dir of dirsOf(limits)) assert.ok(existsSync(dir), `${dir} exists`);
    assert.deepEqual(quotaOf(limits), { quota: 100_000, period: 50_000 });
    assert.deepEqual(liveCgroups(), [limits.name]);
    await limits.teardown();
    for (const dir of dirsOf(limits)) assert.equal(existsSync(dir), false, `${dir} is gone`);
    assert.deepEqual(liveCgroups(), []);
    await limits.teardown(); // a second teardown is harmless
  });

  it('the switch sets the quota to memory / 1769 vCPUs of the same period', () => {
    const limits = mechanism.create(limitSettings(1024, DEFAULT_SPEC.limits));
    try {
      assert.deepEqual(quotaOf(limits), { quota: 2 * DEFAULT_SPEC.limits.cpuPeriodUs, period: DEFAULT_SPEC.limits.cpuPeriodUs });
      limits.switchToInvokeCpu();
      assert.deepEqual(quotaOf(limits), {
        quota: Math.round((1024 / 1769) * DEFAULT_SPEC.limits.cpuPeriodUs),
        period: DEFAULT_SPEC.limits.cpuPeriodUs,
      });
    } finally {
      limits.teardownSync();
    }
    for (const dir of dirsOf(limits)) assert.equal(existsSync(dir), false);
  });

  it('settings the kernel would refuse fail before any cgroup is made', () => {
    assert.throws(
      () => mechanism.create(limitSettings(128, { initCpus: 2, cpuPeriodUs: 10_000 })),
      (error: Error) => {
        assert.ok(error instanceof LimitsError);
        assert.match(error.message, /quota of 724 µs, under the kernel's 1 ms minimum: use a period of at least 13821 µs/);
        return true;
      },
    );
    assert.deepEqual(leftovers(), []);
  });

  it('the child is in its cgroup from its first instruction, with the same pid, its arguments intact', async () => {
    const limits = mechanism.create(limitSettings(256, DEFAULT_SPEC.limits));
    try {
      const runnerCgroups = readFileSync('/proc/self/cgroup', 'utf8');
      // cat reads /proc/self/cgroup as the first thing the exec'd program does
      const cat = start(limits, 'cat', ['/proc/self/cgroup']);
      const catOut = await exited(cat);
      assert.equal(catOut.code, 0);
      const node = start(limits, process.execPath, [fixture('limits-first-cgroup.js'), 'a b', '$(echo no)', '"; exit 1']);
      const pid = node.pid;
      const nodeOut = await exited(node);
      assert.equal(nodeOut.code, 0);
      for (const text of [catOut.stdout, nodeOut.stdout]) {
        const lines = text.split('\n').filter((l) => /^\d+:/.test(l));
        const v2 = mechanism.info.kind === 'cgroup-v2';
        const limited = lines.filter((l) => (v2 ? l.startsWith('0::') : /:(cpu|memory)[,:]/.test(l)));
        assert.ok(limited.length >= (v2 ? 1 : 2), text);
        for (const l of limited) assert.ok(l.endsWith(`/${limits.name}`), `${l} is in ${limits.name}`);
      }
      assert.match(nodeOut.stdout, /\["a b","\$\(echo no\)","\\"; exit 1"\]/);
      assert.match(nodeOut.stdout, new RegExp(`^pid ${pid}$`, 'm'), "the shell exec'd the command: same pid as spawned");
      assert.equal(readFileSync('/proc/self/cgroup', 'utf8'), runnerCgroups, 'the runner stays where it was');
    } finally {
      await limits.teardown();
    }
  });

  it('the CPU switch: after INIT the quota holds the child to 0.1 vCPU, whatever else the machine runs', async () => {
    const burn = async (memoryMB: number) => {
      const limits = mechanism.create(limitSettings(memoryMB, DEFAULT_SPEC.limits));
      const child = start(limits, process.execPath, [fixture('limits-burn.js'), '20'], true);
      try {
        await line(child, /^ready$/);
        limits.switchToInvokeCpu();
        const before = limits.cpuTime();
        const t0 = performance.now();
        child.stdin!.write('go\n');
        await line(child, /^done /, 30_000);
        const wall = performance.now() - t0;
        const cpu = limits.cpuTime();
        return { wall, before, cpu };
      } finally {
        await stopGroup(child);
        await limits.teardown();
      }
    };
    const narrow = await burn(177); // 0.1 vCPU
    if (narrow.cpu && narrow.before) {
      // the cgroup's own counters: load on the machine can only lower the share, never raise it, so this
      // holds on a busy machine where a wall-time ratio against a wide run does not
      const usedMs = narrow.cpu.usageMs - narrow.before.usageMs;
      assert.ok(usedMs > 0, 'the burn is counted as CPU time');
      assert.ok(usedMs / narrow.wall <= 0.15, `0.1 vCPU used ${usedMs.toFixed(0)} ms of CPU in ${narrow.wall.toFixed(0)} ms`);
      assert.ok((narrow.cpu.throttledPeriods ?? 0) > (narrow.before.throttledPeriods ?? 0), 'the quota held the narrow burn back');
    } else {
      const wide = await burn(3538); // 3538 / 1769 = 2 vCPUs
      assert.ok(narrow.wall > 2 * wide.wall, `0.1 vCPU took ${narrow.wall.toFixed(0)} ms, 2 vCPUs ${wide.wall.toFixed(0)} ms`);
    }
  });

  it('a child that allocates past its limit fails with the out-of-memory reason; one under it does not', async () => {
    const run = async (megabytes: number) => {
      const limits = mechanism.create(limitSettings(128, DEFAULT_SPEC.limits));
      try {
        const child = start(limits, process.execPath, [fixture('limits-alloc.js'), String(megabytes)]);
        const end = await exited(child);
        return { end, outcome: limits.outcome({ signal: end.signal }) };
      } finally {
        await limits.teardown();
      }
    };
    const over = await run(400);
    assert.equal(over.end.signal, 'SIGKILL');
    assert.equal(over.outcome.outOfMemory, true);
    assert.equal(over.outcome.reason, 'out of memory at 128 MB');
    if (over.outcome.peakBytes !== undefined) assert.ok(over.outcome.peakBytes > 0.9 * 128 * 2 ** 20, `peak ${over.outcome.peakBytes}`);
    const under = await run(16);
    assert.equal(under.end.code, 0);
    assert.match(under.end.stdout, /survived 16 MB/);
    assert.equal(under.outcome.outOfMemory, false);
    assert.equal(under.outcome.reason, undefined);
  });

  it('after a sample: no cgroup and no process left, a grandchild that left the process group included', async () => {
    const marker = `coldstart-test-limits-${process.pid}`;
    const limits = mechanism.create(limitSettings(256, DEFAULT_SPEC.limits));
    const child = start(limits, process.execPath, [fixture('grandchild.js'), marker]);
    assert.ok(await waitFor(() => processesWith(marker).length === 2, 5000), 'child and grandchild started');
    await stopGroup(child, 300);
    await limits.teardown();
    assert.deepEqual(processesWith(marker), []);
    for (const dir of dirsOf(limits)) assert.equal(existsSync(dir), false);
  });

  for (const mode of ['sigint', 'exit'] as const) {
    it(`a runner ${mode === 'sigint' ? 'interrupted by SIGINT' : 'that exits mid-sample'} leaves no cgroup and no process`, async () => {
      const marker = `coldstart-test-limits-${mode}-${process.pid}`;
      const runner = spawn(process.execPath, ['--import', 'tsx', fixture('limits-runner.mjs'), marker, mode], {
        cwd: ROOT,
        stdio: ['ignore', 'pipe', 'pipe'],
        env: childEnvironment().env,
      });
      let stderr = '';
      runner.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
      const closed = new Promise<number | null>((resolve) => runner.once('close', (code) => resolve(code)));
      try {
        const started = await line(runner, /^(started|skip) /, 20_000);
        assert.match(started, /^started coldstart-\d+-1 2$/, 'the child and its grandchild are in the cgroup');
        const name = started.split(' ')[1]!;
        if (mode === 'sigint') runner.kill('SIGINT');
        const code = await closed;
        assert.equal(code, mode === 'sigint' ? 130 : 0, stderr);
        assert.ok(await waitFor(() => processesWith(marker).length === 0, 3000), `left behind: ${processesWith(marker).join(', ')}`);
        for (const parent of Object.values(mechanism.info.parents)) {
          assert.equal(existsSync(`${parent}/${name}`), false, `${parent}/${name}`);
        }
      } finally {
        // a failed assertion must not leave the runner or its children running
        runner.kill('SIGKILL');
        for (const pid of processesWith(marker)) process.kill(pid, 'SIGKILL');
      }
    });
  }
});
