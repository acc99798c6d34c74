/**
 * The reliability suite: the real command line, started the way users start it, against what a
 * hostile but fair user (or a busy machine) does to it. Interrupts through `npm run` and `make` (in
 * their own process group, the whole group signalled, a second signal 0.3 s later), two runs into
 * one folder, a child that leaves a daemon holding its pipes, a full disk (a small tmpfs), and a
 * runner killed with SIGKILL followed by a new run, which finds and cleans what it left.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { SyntaxValidator } from 'fast-xml-validator';
import { readSamples } from '../../metrics/store/samples-file.ts';
import { detectLimits } from '../../metrics/measure/limits/detect.ts';
import { markedProcesses } from '../../metrics/measure/marked.ts';
import { setprivPath } from '../../metrics/measure/parent-death.ts';
import { CLI, groupAlive, processesWith, ROOT, runCli, tempDir, waitFor } from '../support/helpers.ts';

const SMALL = ['--frameworks', 'node-http', '--routes', '1', '--warmup', '0'];

interface Started {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  /** the pipes closed: every process that held them ended */
  exited: Promise<number | null>;
  /** the launcher itself ended (its children may still hold the pipes) */
  launcherExited: Promise<void>;
}

/** Start a command in its own process group (as a terminal's foreground job is). */
function startGroup(command: string, args: string[], env: NodeJS.ProcessEnv = process.env): Started {
  const child = spawn(command, args, { cwd: ROOT, detached: true, stdio: ['ignore', 'pipe', 'pipe'], env });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => child.on('close', (code, signal) => resolve(code ?? (signal ? -1 : null))));
  const launcherExited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  return { child, stdout: () => stdout, stderr: () => stderr, exited, launcherExited };
}

function sampleLines(file: string): number {
  return existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean).length : 0;
}

describe('interrupts through the launchers: the report survives the copies of the signal', () => {
  const launches: { what: string; command: string; args: (out: string) => string[]; signals: NodeJS.Signals[] }[] = [
    {
      what: 'npm run, SIGINT to the group and again 0.3 s later',
      command: 'npm',
      args: (out) => ['run', '-s', 'metrics', '--', ...SMALL, '--routes', '1,10', '--samples', '300', '--out', out],
      signals: ['SIGINT', 'SIGINT'],
    },
    {
      what: 'npm run, SIGTERM to the group',
      command: 'npm',
      args: (out) => ['run', '-s', 'metrics', '--', ...SMALL, '--samples', '300', '--out', out],
      signals: ['SIGTERM'],
    },
    {
      what: 'make metrics, SIGINT to the group',
      command: 'make',
      args: (out) => ['-s', 'metrics', `ARGS=${[...SMALL, '--samples', '300', '--out', out].join(' ')}`],
      signals: ['SIGINT'],
    },
    {
      what: 'make metrics, SIGTERM to the group',
      command: 'make',
      args: (out) => ['-s', 'metrics', `ARGS=${[...SMALL, '--samples', '300', '--out', out].join(' ')}`],
      signals: ['SIGTERM'],
    },
  ];
  for (const launch of launches) {
    it(
      launch.what,
      { skip: spawnSync(launch.command, ['--version']).status === 0 ? false : `${launch.command} not installed` },
      async () => {
        const out = path.join(tempDir(), 'run');
        const run = startGroup(launch.command, launch.args(out));
        const samples = path.join(out, 'samples.jsonl');
        assert.ok(await waitFor(() => sampleLines(samples) >= 3, 90_000, 100), `the run wrote samples: ${run.stderr()}`);
        for (const [i, signal] of launch.signals.entries()) {
          if (i > 0) await new Promise((r) => setTimeout(r, 300));
          process.kill(-run.child.pid!, signal);
        }
        await run.launcherExited;
        // the launcher returns only after the report is written: a CI step that reads it next finds it
        const reportFirst = existsSync(path.join(out, 'summary.md'));
        await run.exited;
        assert.ok(reportFirst, `the report was written before ${launch.command} returned: ${run.stdout()} ${run.stderr()}`);
        assert.ok(await waitFor(() => !groupAlive(run.child.pid!), 60_000), 'the whole group ended');
        assert.match(run.stdout(), /^interrupted; partial results in /m, run.stderr());
        assert.match(readFileSync(path.join(out, 'summary.md'), 'utf8'), /interrupted: partial results/);
        // (the curve charts need two route counts answered in a series, which a run cut short may not have)
        assert.ok(existsSync(path.join(out, 'report.html')), 'the page was written');
        assert.ok(
          readSamples(samples).every((s) => s.ok),
          'no interrupted sample recorded as a failure',
        );
        assert.doesNotMatch(run.stderr(), /internal error|\n\s+at /);
        assert.deepEqual(
          processesWith(`${path.sep}1-startup-node-http-routes.js`).filter((pid) => groupOf(pid) === run.child.pid),
          [],
        );
        assert.equal(existsSync(path.join(out, '.coldstart.lock')), false, 'the folder is released');
      },
    );
  }
});

function groupOf(pid: number): number | undefined {
  try {
    return Number(readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[2]);
  } catch {
    return undefined;
  }
}

describe('one run per folder, through the command line', () => {
  it('two runs started together into one --out: one measures, the other is refused with exit 2', async () => {
    const out = path.join(tempDir(), 'shared');
    const args = [...CLI, 'run', ...SMALL, '--samples', '4', '--out', out];
    const [a, b] = [startGroup(process.execPath, args), startGroup(process.execPath, args)];
    const codes = [await a.exited, await b.exited].sort();
    assert.deepEqual(codes, [0, 2], `${a.stderr()}\n${b.stderr()}`);
    const refused = [a, b].find((r) => r.stderr().includes('coldstart: ') && /in use by another run|already holds a run/.test(r.stderr()));
    assert.ok(refused, `${a.stderr()}\n${b.stderr()}`);
    assert.equal(readSamples(path.join(out, 'samples.jsonl')).length, 4, 'only the samples one run asked for');
  });
});

/** A --node that starts a daemon (setsid -f, holding the pipes) before it runs a cell's file. */
function daemonizingNode(dir: string, marker: string, then = 'exec "$NODE" "$@"'): string {
  const file = path.join(dir, 'node-with-daemon.sh');
  writeFileSync(
    file,
    [
      '#!/bin/sh',
      `NODE='${process.execPath}'`,
      'case "$*" in',
      `  *-routes.js*) setsid -f "$NODE" -e "process.on('SIGTERM', () => {}); setInterval(() => {}, 1000)" ${marker}-daemon ;;`,
      'esac',
      'case "$*" in *-routes.js*) ' + then + ' ;; esac',
      'exec "$NODE" "$@"',
      '',
    ].join('\n'),
  );
  chmodSync(file, 0o755);
  return file;
}

describe('exit codes of a run', () => {
  it('samples that failed: exit 3, saying so; --allow-failures accepts them (exit 0)', async () => {
    const dir = tempDir();
    const node = path.join(dir, 'node-that-crashes.sh');
    writeFileSync(node, `#!/bin/sh\ncase "$*" in *-routes.js*) echo 'boom' >&2; exit 1 ;; esac\nexec '${process.execPath}' "$@"\n`);
    chmodSync(node, 0o755);
    const args = (out: string, ...more: string[]) => [
      ...CLI,
      'run',
      ...SMALL,
      '--samples',
      '1',
      '--node',
      node,
      '--out',
      path.join(dir, out),
      ...more,
    ];
    const [failing, accepted] = [startGroup(process.execPath, args('a')), startGroup(process.execPath, args('b', '--allow-failures'))];
    assert.equal(await failing.exited, 3, failing.stderr());
    assert.match(failing.stderr(), /^coldstart: 1 sample\(s\) failed \(see summary\.md\): exit 3; --allow-failures accepts them$/m);
    assert.equal(await accepted.exited, 0, accepted.stderr());
    assert.match(accepted.stdout(), /; 1 failed samples$/m);
  });
});

describe('a child that leaves a daemon behind', () => {
  it('the run ends (the pipes do not hold it) and the daemon does not survive it', () => {
    const dir = tempDir();
    const marker = `coldstart-reliability-${process.pid}`;
    const node = daemonizingNode(dir, marker);
    const run = runCli(['run', ...SMALL, '--samples', '2', '--node', node, '--out', path.join(dir, 'run')], { timeoutMs: 120_000 });
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /^results in /);
    assert.deepEqual(processesWith(`${marker}-daemon`), [], 'no daemon left');
  });
});

const root = process.getuid?.() === 0;
describe('a full disk', { skip: root && process.platform === 'linux' ? false : 'needs root to mount a small tmpfs' }, () => {
  const mounts: string[] = [];
  after(() => {
    for (const m of mounts) spawnSync('umount', ['-l', m]);
  });
  const mountTmpfs = (size: string): string | undefined => {
    const dir = path.join(tempDir(), 'disk');
    mkdirSync(dir);
    const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir]);
    if (mounted.status !== 0) return undefined;
    mounts.push(dir);
    return dir;
  };

  it('the error names the file, exit 4, nothing truncated or half-made left, every finished sample kept', (t) => {
    const disk = mountTmpfs('32k');
    if (!disk) {
      t.skip('mount -t tmpfs failed');
      return;
    }
    const out = path.join(disk, 'run');
    const run = runCli(['run', ...SMALL, '--samples', '2', '--out', out]);
    assert.equal(run.status, 4, `${run.stdout}\n${run.stderr}`);
    const last = run.stderr.trim().split('\n').at(-1)!;
    assert.match(
      last,
      new RegExp(
        `^coldstart: cannot write ${out}/[\\w.-]+ \\(ENOSPC: no space left on device\\); the samples are kept: \`npm run report -- `,
      ),
    );
    assert.doesNotMatch(run.stderr, /internal error|\n\s+at /);
    const files = readdirSync(out);
    assert.deepEqual(
      files.filter((f) => f.includes('.tmp-') || f.startsWith('.coldstart')),
      [],
      'no temporary file and no lock left',
    );
    assert.equal(readSamples(path.join(out, 'samples.jsonl')).length, 2, 'both samples kept whole');
    for (const svg of files.filter((f) => f.endsWith('.svg'))) {
      assert.doesNotThrow(() => SyntaxValidator.validate(readFileSync(path.join(out, svg), 'utf8')), `${svg} is whole`);
    }
    for (const f of files) assert.ok(readFileSync(path.join(out, f)).length > 0, `${f} is not empty`);
  });

  it('a disk already full: exit 4 before anything runs, nothing made', (t) => {
    const disk = mountTmpfs('4k');
    if (!disk) {
      t.skip('mount -t tmpfs failed');
      return;
    }
    writeFileSync(path.join(disk, 'filler'), Buffer.alloc(4096));
    const run = runCli(['run', ...SMALL, '--samples', '1', '--out', path.join(disk, 'run')]);
    assert.equal(run.status, 4, run.stderr);
    assert.match(run.stderr, /^coldstart: cannot (write in|create) .*disk\/run.*ENOSPC/);
  });
});

describe('SIGKILL of the runner, then a new run', { skip: setprivPath() ? false : 'setpriv (util-linux) is not installed' }, () => {
  it('the child in flight dies with the runner; the next run stops the daemon and removes cgroups and scratch, saying so', async () => {
    const dir = tempDir();
    const marker = `coldstart-killed-${process.pid}`;
    // the cell's child starts a daemon, then hangs (never ready) until the runner's timeout
    const node = daemonizingNode(dir, marker, `exec "$NODE" -e "setInterval(() => {}, 1000)" ${marker}-inflight`);
    const limits = detectLimits().ok ? ['--lambda-memory', '1024'] : [];
    // without the containment helper (COLDSTART_CONTAIN=0), as where it cannot be built: the mark is
    // all the next run has (with the helper the daemon dies with the runner: test/e2e/contain.test.ts)
    const killed = startGroup(
      process.execPath,
      [...CLI, 'run', ...SMALL, '--samples', '1', '--timeout', '100', '--node', node, ...limits, '--out', path.join(dir, 'killed')],
      { ...process.env, COLDSTART_CONTAIN: '0' },
    );
    const pid = killed.child.pid!;
    assert.ok(await waitFor(() => processesWith(`${marker}-inflight`).length === 1, 90_000, 100), `the sample started: ${killed.stderr()}`);
    assert.ok(await waitFor(() => processesWith(`${marker}-daemon`).length === 1, 10_000), 'the daemon started');
    const mine = (name: string) => name.startsWith(`coldstart-run-${pid}.`);
    assert.equal(readdirSync(os.tmpdir()).filter(mine).length, 1, 'its scratch folder');
    const cgroupsOf = () => (limits.length ? sampleCgroupsOf(pid) : []);
    if (limits.length) assert.ok(cgroupsOf().length > 0, 'its sample cgroup');
    process.kill(pid, 'SIGKILL');
    await killed.exited;
    assert.ok(await waitFor(() => processesWith(`${marker}-inflight`).length === 0, 5000), 'the child in flight died with its runner');
    assert.equal(
      processesWith(`${marker}-daemon`).length,
      1,
      'the daemon (out of reach of the parent-death signal) is left for the next run',
    );

    const next = runCli(['run', ...SMALL, '--samples', '1', '--out', path.join(dir, 'next')]);
    assert.equal(next.status, 0, next.stderr);
    assert.deepEqual(processesWith(`${marker}-daemon`), [], 'the daemon is gone');
    assert.deepEqual(readdirSync(os.tmpdir()).filter(mine), [], 'the scratch folder is gone');
    assert.deepEqual(cgroupsOf(), [], 'the sample cgroups are gone');
    assert.deepEqual(
      markedProcesses((m) => m.startsWith(`${pid}.`)),
      [],
    );
    // another run on this machine may have cleaned first; when this one did, it said so
    if (/a killed run left/.test(next.stderr)) assert.match(next.stderr, /coldstart: (stopped|removed) \d+ /);
  });
});

function sampleCgroupsOf(pid: number): string[] {
  const found: string[] = [];
  for (const hierarchy of ['cpu', 'memory', 'cpuacct', 'unified', '']) {
    const dir = path.join('/sys/fs/cgroup', hierarchy);
    try {
      for (const entry of readdirSync(dir)) if (entry.startsWith(`coldstart-${pid}-`)) found.push(path.join(dir, entry));
    } catch {
      // no such hierarchy
    }
  }
  return found;
}
