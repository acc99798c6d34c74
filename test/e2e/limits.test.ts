/**
 * The limits mechanism without the kernel: settings, parsing /proc, the join-then-exec wrapper (on
 * plain files), the OOM verdict, and detection and cgroup v2's file protocol on a directory tree
 * standing in for cgroupfs (what is written where; the kernel's behaviour is tested in limits-cgroup).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import {
  cgroupDir,
  JOIN_FAILED_EXIT,
  joinAndExec,
  parseKeyValues,
  parseMountinfo,
  parseProcCgroup,
} from '../../metrics/measure/limits/cgroupfs.ts';
import { detectLimits } from '../../metrics/measure/limits/detect.ts';
import { liveCgroups } from '../../metrics/measure/limits/registry.ts';
import { wasOutOfMemory } from '../../metrics/measure/limits/sample.ts';
import { invokeCpus, limitSettings, limitSettingsError, outOfMemoryReason, quotaUs } from '../../metrics/measure/limits/settings.ts';
import { DEFAULT_SPEC } from '../../metrics/core/run-spec.ts';
import { v1Parents } from '../../metrics/measure/limits/v1.ts';

const MOUNTINFO_V1 = [
  '24 23 0:21 / /sys/fs/cgroup rw,nosuid - tmpfs tmpfs rw,mode=755',
  '25 24 0:22 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu',
  '26 24 0:23 / /sys/fs/cgroup/cpuacct rw,relatime - cgroup cgroup rw,cpuacct',
  '27 24 0:24 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory',
  '28 24 0:25 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw',
].join('\n');

const SELF_V1 = ['4:memory:/runner/abc', '2:cpuacct:/', '1:cpu:/', '0::/'].join('\n');

function tempDir(): string {
  return mkdtempSync(path.join(os.tmpdir(), 'coldstart-limits-test-'));
}

describe('limits: settings', () => {
  it('the CPU share after INIT is memory / 1769 vCPUs, as a quota per period', () => {
    assert.equal(invokeCpus(1769), 1);
    assert.equal(quotaUs(invokeCpus(128), 100_000), 7236);
    assert.equal(quotaUs(invokeCpus(1024), 100_000), 57_886);
    assert.equal(quotaUs(2, 100_000), 200_000);
    assert.deepEqual(limitSettings(512, DEFAULT_SPEC.limits), { memoryMB: 512, initCpus: 2, cpuPeriodUs: 100_000 });
  });

  it('refuses what the kernel would refuse, with a one-line reason', () => {
    assert.equal(limitSettingsError(limitSettings(128, DEFAULT_SPEC.limits)), undefined);
    assert.equal(limitSettingsError(limitSettings(10_240, { initCpus: 2, cpuPeriodUs: 1_000_000 })), undefined);
    assert.match(limitSettingsError(limitSettings(127, DEFAULT_SPEC.limits))!, /not a Lambda memory size \(128 to 10240 MB\)/);
    assert.match(limitSettingsError(limitSettings(512, { initCpus: 2, cpuPeriodUs: 999 }))!, /outside the kernel's range/);
    assert.match(limitSettingsError(limitSettings(512, { ...DEFAULT_SPEC.limits, initCpus: 0 }))!, /not a positive number of vCPUs/);
    assert.match(
      limitSettingsError(limitSettings(512, { initCpus: 0.001, cpuPeriodUs: 100_000 }))!,
      /quota under the kernel's 1 ms minimum/,
    );
    // 128 MB over 10 ms is 0.72 ms of CPU per period
    assert.match(limitSettingsError(limitSettings(128, { initCpus: 2, cpuPeriodUs: 10_000 }))!, /quota of 724 µs.*at least 13821 µs/);
    assert.equal(limitSettingsError(limitSettings(128, { initCpus: 2, cpuPeriodUs: 13_821 })), undefined);
    assert.equal(outOfMemoryReason(256), 'out of memory at 256 MB');
  });
});

describe('limits: reading /proc and cgroupfs', () => {
  it("parses the cgroup mounts and the runner's own cgroups", () => {
    const mounts = parseMountinfo(MOUNTINFO_V1);
    assert.deepEqual(
      mounts.map((m) => [m.mountPoint, m.fsType, m.options.slice(1).join(',')]),
      [
        ['/sys/fs/cgroup/cpu', 'cgroup', 'cpu'],
        ['/sys/fs/cgroup/cpuacct', 'cgroup', 'cpuacct'],
        ['/sys/fs/cgroup/memory', 'cgroup', 'memory'],
        ['/sys/fs/cgroup/unified', 'cgroup2', ''],
      ],
    );
    const own = parseProcCgroup(SELF_V1);
    assert.equal(own.v2, '/');
    assert.equal(own.v1.get('memory'), '/runner/abc');
    assert.deepEqual(v1Parents(mounts, own), {
      cpu: '/sys/fs/cgroup/cpu',
      memory: '/sys/fs/cgroup/memory/runner/abc',
      cpuacct: '/sys/fs/cgroup/cpuacct',
    });
  });

  it('a comounted cpu,cpuacct hierarchy is one directory; a container mount root is cut off the path', () => {
    const mounts = parseMountinfo(
      [
        '30 24 0:30 /docker/c1 /sys/fs/cgroup/cpu,cpuacct ro,nosuid - cgroup cgroup rw,cpu,cpuacct',
        '31 24 0:31 /docker/c1 /sys/fs/cgroup/memory ro,nosuid - cgroup cgroup rw,memory',
      ].join('\n'),
    );
    const own = parseProcCgroup('5:cpu,cpuacct:/docker/c1\n4:memory:/docker/c1/inner');
    assert.deepEqual(v1Parents(mounts, own), { cpu: '/sys/fs/cgroup/cpu,cpuacct', memory: '/sys/fs/cgroup/memory/inner' });
    assert.equal(cgroupDir(mounts[0]!, '/elsewhere'), undefined);
    const none = v1Parents([], own);
    assert.ok(typeof none === 'string', JSON.stringify(none));
    assert.match(none, /no cgroup v1 cpu hierarchy/);
  });

  it('reads key-value control files, ignoring what is not a number', () => {
    assert.deepEqual(parseKeyValues('oom_kill_disable 0\nunder_oom 0\noom_kill 3\n'), { oom_kill_disable: 0, under_oom: 0, oom_kill: 3 });
    assert.deepEqual(parseKeyValues('usage_usec 12\nweird x\n\n'), { usage_usec: 12 });
    assert.deepEqual(parseKeyValues(undefined), {});
  });
});

describe('limits: joining a cgroup, then exec', () => {
  it('writes its pid to every procs file and execs the command with the same pid and literal arguments', () => {
    const dir = tempDir();
    try {
      const files = [path.join(dir, 'a procs'), path.join(dir, 'b')];
      const script = 'echo "$$"; printf "%s\\n" "$@"';
      const launch = joinAndExec(files, { command: '/bin/sh', args: ['-c', script, 'sh', '$(touch x)', 'a b', '--'] });
      assert.equal(launch.command, '/bin/sh');
      const result = spawnSync(launch.command, launch.args, { cwd: dir, encoding: 'utf8' });
      assert.equal(result.status, 0, result.stderr);
      const [pid, ...args] = result.stdout.trim().split('\n');
      assert.deepEqual(args, ['$(touch x)', 'a b', '--']);
      for (const file of files) assert.equal(readFileSync(file, 'utf8').trim(), pid);
      assert.equal(existsSync(path.join(dir, 'x')), false, 'no argument ran as code');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('never runs the command when it cannot join', () => {
    const dir = tempDir();
    try {
      const launch = joinAndExec([path.join(dir, 'missing', 'cgroup.procs')], { command: 'touch', args: [path.join(dir, 'ran')] });
      const result = spawnSync(launch.command, launch.args, { encoding: 'utf8' });
      assert.equal(result.status, JOIN_FAILED_EXIT);
      assert.equal(existsSync(path.join(dir, 'ran')), false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('limits: the out-of-memory verdict', () => {
  const limit = 128 * 2 ** 20;
  it("the kernel's OOM-kill count decides where it keeps one", () => {
    assert.equal(wasOutOfMemory({ oomKills: 1, peakBytes: 10 }, limit), true);
    assert.equal(wasOutOfMemory({ oomKills: 0, peakBytes: limit }, limit, { signal: 'SIGKILL' }), false);
  });
  it('without a count: a SIGKILL with the peak at the limit', () => {
    assert.equal(wasOutOfMemory({ peakBytes: limit }, limit, { signal: 'SIGKILL' }), true);
    assert.equal(wasOutOfMemory({ peakBytes: limit / 2 }, limit, { signal: 'SIGKILL' }), false);
    assert.equal(wasOutOfMemory({ peakBytes: limit }, limit, { signal: 'SIGTERM' }), false);
    assert.equal(wasOutOfMemory({ peakBytes: limit }, limit), false);
    assert.equal(wasOutOfMemory({}, limit, { signal: 'SIGKILL' }), false);
  });
});

describe('limits: detection', () => {
  it('says what is needed when no hierarchy is writable', () => {
    const dir = tempDir();
    try {
      const missing = path.join(dir, 'absent');
      const mountinfo = [
        `25 24 0:22 / ${missing}/cpu rw - cgroup cgroup rw,cpu`,
        `27 24 0:24 / ${missing}/memory rw - cgroup cgroup rw,memory`,
        `28 24 0:25 / ${missing}/unified rw - cgroup2 cgroup2 rw`,
      ].join('\n');
      const detection = detectLimits({ mountinfo, selfCgroup: '1:cpu:/\n4:memory:/\n0::/' });
      assert.equal(detection.ok, false);
      const { reason } = detection as { reason: string };
      assert.doesNotMatch(reason, /\n/);
      assert.match(reason, /run as root \(cgroup v1: cannot make a cgroup in .*absent\/cpu \(ENOENT\)\)/);
      assert.match(reason, /delegated cgroup v2 subtree with the cpu and memory controllers, e\.g\. `systemd-run --user --scope/);
      assert.match(reason, /\(cgroup v2: .*unified offers no cpu or memory controller\)$/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('cgroup v2 in a delegated subtree: moves the runner into a leaf, enables the controllers, writes cpu.max and memory.max', async () => {
    // a directory tree standing in for cgroupfs: mkdir makes no control files here, so the test removes them before teardown
    const root = tempDir();
    const scope = path.join(root, 'user.slice', 'run-1.scope');
    try {
      mkdirSync(scope, { recursive: true });
      writeFileSync(path.join(scope, 'cgroup.controllers'), 'cpuset cpu io memory pids\n');
      writeFileSync(path.join(scope, 'cgroup.subtree_control'), '\n');
      writeFileSync(path.join(scope, 'cgroup.procs'), `${process.pid}\n`);
      mkdirSync(path.join(scope, 'coldstart-999999999-3')); // left by a runner that no longer lives
      const mountinfo = `28 24 0:25 / ${root} rw - cgroup2 cgroup2 rw`;
      const detection = detectLimits({ mountinfo, selfCgroup: '0::/user.slice/run-1.scope' });
      assert.ok(detection.ok, JSON.stringify(detection));
      const { mechanism } = detection;
      assert.equal(mechanism.info.kind, 'cgroup-v2');
      assert.deepEqual(mechanism.info.parents, { unified: scope });
      assert.equal(existsSync(path.join(scope, 'coldstart-999999999-3')), false, 'the stale cgroup was swept');
      const leaf = path.join(scope, `coldstart-runner-${process.pid}`);
      assert.equal(readFileSync(path.join(leaf, 'cgroup.procs'), 'utf8'), String(process.pid));
      assert.equal(readFileSync(path.join(scope, 'cgroup.subtree_control'), 'utf8'), '+cpu +memory');
      assert.equal(mechanism.info.notes.length, 2);

      const limits = mechanism.create(limitSettings(1024, { initCpus: 2, cpuPeriodUs: 100_000 }));
      const dir = path.join(scope, limits.name);
      const read = (file: string) => readFileSync(path.join(dir, file), 'utf8');
      assert.equal(read('memory.max'), String(1024 * 2 ** 20));
      assert.equal(read('cpu.max'), '200000 100000');
      limits.switchToInvokeCpu();
      assert.equal(read('cpu.max'), '57886 100000');
      const wrapped = limits.wrap({ command: 'node', args: ['app.js'] });
      assert.deepEqual(wrapped.args.slice(-4), [path.join(dir, 'cgroup.procs'), '--', 'node', 'app.js']);
      writeFileSync(path.join(dir, 'memory.events'), 'low 0\nhigh 0\nmax 4\noom 1\noom_kill 1\n');
      writeFileSync(path.join(dir, 'memory.peak'), String(1024 * 2 ** 20));
      writeFileSync(path.join(dir, 'cpu.stat'), 'usage_usec 1500\nnr_throttled 3\nthrottled_usec 2500\n');
      const outcome = limits.outcome();
      assert.deepEqual(outcome, { memoryMB: 1024, peakBytes: 1024 * 2 ** 20, outOfMemory: true, reason: 'out of memory at 1024 MB' });
      assert.deepEqual(limits.cpuTime(), { usageMs: 1.5, throttledMs: 2.5, throttledPeriods: 3 });
      for (const file of ['memory.max', 'cpu.max', 'memory.events', 'memory.peak', 'cpu.stat']) unlinkSync(path.join(dir, file));
      await limits.teardown();
      assert.equal(existsSync(dir), false);
      assert.deepEqual(liveCgroups(), []);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
