/**
 * The process, signal and filesystem half of issue 20, module by module: one run per folder (an
 * atomic lock, a dead runner's taken over, default folders that never collide), descendants that
 * escape the process group, output folders on kernel filesystems, files written whole, and the
 * environment's refusals named. The real command line against the same is test/e2e/reliability.test.ts.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { EnvironmentError, UsageError } from '../../metrics/core/errors.ts';
import { appendLine, writeFileWhole } from '../../metrics/store/files.ts';
import { readMeta } from '../../metrics/store/meta-file.ts';
import { checkOutDir, makeWritableDir, pseudoFilesystem } from '../../metrics/store/out-dir.ts';
import { markedProcesses, OWNER_ENV } from '../../metrics/measure/marked.ts';
import { ownerAlive, ownerTag, parseOwnerTag, processStart } from '../../metrics/measure/owner.ts';
import { setprivPath, withParentDeath } from '../../metrics/measure/parent-death.ts';
import { folderHolder, LOCK_FILE, lockFolder } from '../../metrics/measure/run-lock.ts';
import { MeasurementSession, RESULTS_DIR } from '../../metrics/measure/session.ts';
import { fixture, processesWith, runFile, tempDir, waitFor } from '../support/helpers.ts';

/** A process that is surely dead, with the tag it had. */
function deadOwnerTag(): string {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return `${child.stdout}.1`;
}

describe('owner: a runner is its pid and its start time', () => {
  it('this process is alive; the same pid with another start time is not; a dead pid is not', () => {
    const tag = ownerTag();
    assert.match(tag, /^\d+\.\d+$/);
    assert.equal(ownerAlive(parseOwnerTag(tag)!), true);
    assert.equal(ownerAlive({ pid: process.pid, start: (processStart(process.pid) ?? 0) + 1 }), false);
    assert.equal(ownerAlive({ pid: process.ppid, start: (processStart(process.ppid) ?? 0) + 1 }), false, 'a reused pid');
    assert.equal(ownerAlive(parseOwnerTag(deadOwnerTag())!), false);
    assert.equal(parseOwnerTag('12.x'), undefined);
  });
});

describe('one run per folder', () => {
  it('a second lock of a held folder is a usage error naming the holder; released, it can be taken again', () => {
    const dir = tempDir();
    const say: string[] = [];
    const lock = lockFolder(dir, 'run', (line) => say.push(line));
    assert.throws(
      () => lockFolder(dir, 'run', () => undefined),
      (error: Error) => {
        assert.ok(error instanceof UsageError);
        assert.match(error.message, new RegExp(`${dir} is in use by another run \\(run pid ${process.pid}, since `));
        return true;
      },
    );
    assert.ok(folderHolder(dir));
    lock.release();
    assert.equal(existsSync(path.join(dir, LOCK_FILE)), false);
    lockFolder(dir, 'run', () => undefined).release();
    assert.deepEqual(say, []);
  });

  it("a dead runner's lock is taken over, saying so", () => {
    const dir = tempDir();
    writeFileSync(path.join(dir, LOCK_FILE), JSON.stringify({ owner: deadOwnerTag(), command: 'run', since: '2026-01-01T00:00:00.000Z' }));
    assert.equal(folderHolder(dir), undefined);
    const say: string[] = [];
    const lock = lockFolder(dir, 'run', (line) => say.push(line));
    assert.match(say.join('\n'), /took over the lock of a run that is no longer alive .*since 2026-01-01/);
    assert.match(readFileSync(lock.file, 'utf8'), new RegExp(`"owner":"${ownerTag().replace('.', '\\.')}"`));
    lock.release();
    assert.deepEqual(readdirSync(dir), [], 'nothing else left');
  });

  it('two sessions into one --out: the second is refused (exit 2), the first keeps the folder', () => {
    const out = path.join(tempDir(), 'run');
    const first = new MeasurementSession({ out, marker: 'samples.jsonl', what: 'a run', command: 'run', say: () => undefined });
    try {
      assert.throws(
        () => new MeasurementSession({ out, marker: 'samples.jsonl', what: 'a run', command: 'run', say: () => undefined }),
        /is in use by another run/,
      );
      assert.ok(existsSync(path.join(out, LOCK_FILE)), 'the refusal leaves the holder its lock');
    } finally {
      first.finish();
    }
    assert.equal(existsSync(path.join(out, LOCK_FILE)), false, 'released at the end');
    assert.equal(existsSync(first.scratch), false, 'scratch folder removed');
  });

  it('two runs without --out in the same second get two folders', () => {
    const startedAt = new Date('2031-02-03T04:05:06.000Z');
    const sessions = [0, 1, 2].map(
      () => new MeasurementSession({ out: undefined, marker: 'samples.jsonl', what: 'a run', command: 'run', startedAt }),
    );
    try {
      const dirs = sessions.map((s) => path.basename(s.dir));
      assert.deepEqual(dirs, ['2031-02-03T04-05-06Z', '2031-02-03T04-05-06Z-2', '2031-02-03T04-05-06Z-3']);
    } finally {
      for (const s of sessions) {
        s.abandon();
        rmSync(s.dir, { recursive: true, force: true });
      }
    }
    assert.equal(existsSync(path.join(RESULTS_DIR, '2031-02-03T04-05-06Z')), false);
  });
});

describe('output folders', () => {
  it('a folder under /proc or a cgroup hierarchy is refused before anything is made (no cgroup left)', () => {
    assert.throws(() => checkOutDir('/proc/coldstart-pkg'), /--out: \/proc\/coldstart-pkg is on proc, a kernel filesystem/);
    assert.throws(() => makeWritableDir('/proc/coldstart-pkg/a/b'), /is on proc/);
    const cgroups = ['/sys/fs/cgroup/memory', '/sys/fs/cgroup/cpu', '/sys/fs/cgroup', '/sys/fs/cgroup/unified'].filter((d) =>
      /^cgroup2?$/.test(pseudoFilesystem(d) ?? ''),
    );
    for (const parent of cgroups) {
      const dir = path.join(parent, `coldstart-out-${process.pid}`);
      assert.throws(() => makeWritableDir(path.join(dir, 'run')), /a kernel filesystem that holds no files/);
      assert.equal(existsSync(dir), false, `no cgroup made under ${parent}`);
    }
  });

  it('a meta.json that is a folder is in the way: a usage error before anything runs', () => {
    const out = tempDir();
    mkdirSync(path.join(out, 'meta.json'));
    assert.throws(
      () => new MeasurementSession({ out, marker: 'samples.jsonl', what: 'a run', command: 'run' }),
      (error: Error) => {
        assert.ok(error instanceof UsageError);
        // no meta.json of a run's: the folder is not the tool's own, refused as the user's (issue 46)
        assert.match(error.message, /meta\.json is in the way \(not a file\)|is not empty \(meta\.json\) and not a run folder/);
        return true;
      },
    );
    assert.equal(existsSync(path.join(out, LOCK_FILE)), false);
  });

  it('meta.json that is JSON but not an object, or a folder: a usage error naming it', () => {
    for (const text of ['[]', '42', 'null', '"x"']) {
      const dir = tempDir();
      writeFileSync(path.join(dir, 'meta.json'), text);
      assert.throws(() => readMeta(dir), new RegExp(`${dir}/meta\\.json is not a run's meta\\.json \\(a JSON object expected`));
    }
    const dir = tempDir();
    mkdirSync(path.join(dir, 'meta.json'));
    assert.throws(() => readMeta(dir), /meta\.json is a folder/);
    const torn = tempDir();
    writeFileSync(path.join(torn, 'meta.json'), '{"date":');
    // corrupt is not missing: a usage error naming the file, not a report that says the environment is unknown
    assert.throws(() => readMeta(torn), new RegExp(`${torn}/meta\\.json is not valid JSON \\(.*\\): repair or remove it`));
    const huge = tempDir();
    writeFileSync(path.join(huge, 'meta.json'), `{"pad":"${'x'.repeat(17 * 1024 * 1024)}"}`);
    assert.throws(() => readMeta(huge), /meta\.json is too large: a run's meta\.json is at most 16 MB/);
    assert.equal(readMeta(tempDir()), undefined, 'absent: the report says the environment is unknown');
  });
});

describe('files whole or not at all', () => {
  it('an artefact that cannot be written names the file, leaves no temporary file and the old one intact', () => {
    const dir = tempDir();
    const file = path.join(dir, 'summary.md');
    writeFileWhole(file, 'old');
    mkdirSync(path.join(dir, 'chart.svg'));
    assert.throws(
      () => writeFileWhole(path.join(dir, 'chart.svg'), 'x'),
      (error: Error) => {
        assert.ok(error instanceof EnvironmentError);
        assert.match(error.message, new RegExp(`cannot write ${dir}/chart\\.svg \\(EISDIR`));
        return true;
      },
    );
    writeFileWhole(file, 'new');
    assert.equal(readFileSync(file, 'utf8'), 'new');
    assert.deepEqual(readdirSync(dir).sort(), ['chart.svg', 'summary.md']);
  });

  it('appendLine adds whole lines', () => {
    const file = path.join(tempDir(), 'samples.jsonl');
    appendLine(file, '{"a":1}');
    appendLine(file, '{"a":2}\n');
    assert.equal(readFileSync(file, 'utf8'), '{"a":1}\n{"a":2}\n');
    assert.throws(() => appendLine(path.join(file, 'x'), '{}'), /cannot write .*samples\.jsonl\/x \(ENOTDIR\)/);
  });
});

describe('descendants that leave the process group', () => {
  it('a daemonized grandchild holding the pipes neither keeps the sample waiting nor survives it', async () => {
    const marker = `coldstart-test-daemon-${process.pid}`;
    const started = Date.now();
    const sample = await runFile(fixture('daemonize.js'), { args: [marker], timeoutMs: 20_000 });
    assert.equal(sample.ok, true, sample.error);
    assert.ok(Date.now() - started < 15_000, 'the sample ended long before its timeout');
    assert.ok(await waitFor(() => processesWith(marker).length === 0, 3000), `left behind: ${processesWith(marker).join(', ')}`);
  });

  it('every child carries the mark of its sample', async () => {
    const sample = await runFile(fixture('env-echo.js'));
    const line = sample.stderrTail?.split('\n').find((l) => l.startsWith('ENV ')) ?? '';
    const env = JSON.parse(line.slice(4)) as Record<string, string>;
    assert.match(env[OWNER_ENV] ?? '', new RegExp(`^${ownerTag().replace('.', '\\.')}-\\d+$`));
    assert.deepEqual(
      markedProcesses((mark) => mark.startsWith(`${ownerTag()}-`)),
      [],
      'nothing of this process is left',
    );
  });
});

describe('children die with the runner', { skip: setprivPath() ? false : 'setpriv (util-linux) is not installed' }, () => {
  it('a runner killed with SIGKILL takes its child with it (parent-death signal)', async () => {
    const marker = `coldstart-test-pdeath-${process.pid}`;
    const launch = withParentDeath({ command: process.execPath, args: ['-e', 'setInterval(() => {}, 1000)', marker] });
    assert.equal(launch.command, setprivPath());
    // a runner of our own: it starts the child detached (its own group, as the runner does), then is killed
    // (the launch goes by the environment: the runner's own command line must not hold the marker)
    const script = [
      'const l = JSON.parse(process.env.LAUNCH);',
      "require('node:child_process').spawn(l.command, l.args, { detached: true, stdio: 'ignore' });",
      'setInterval(() => {}, 1000);',
    ].join(' ');
    const runner = spawn(process.execPath, ['-e', script], { stdio: 'ignore', env: { ...process.env, LAUNCH: JSON.stringify(launch) } });
    assert.ok(await waitFor(() => processesWith(marker).length === 1, 10_000), 'the child started');
    runner.kill('SIGKILL');
    assert.ok(
      await waitFor(() => processesWith(marker).length === 0, 5000),
      `the child outlived its runner: ${processesWith(marker).join(', ')}`,
    );
  });

  it('a command that cannot be started is not wrapped (the spawn error stays its own)', () => {
    const missing = path.join(os.tmpdir(), 'no-such-runtime');
    assert.deepEqual(withParentDeath({ command: missing, args: [] }), { command: missing, args: [] });
  });
});
