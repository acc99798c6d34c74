/**
 * The Runtime Interface Client's build is interruptible (metrics/plan/ric-build.ts): a SIGTERM to the process
 * building, or a Ctrl-C to its process group, leaves no process of the build (its grandchildren
 * included) and no partial folder. The real build takes minutes, so the build here is a stand-in that
 * writes into the partial folder and waits in two grandchildren (for 600 s or more); the supervisor is the real
 * one. Timings are not asserted (2 shared cores, other jobs beside): the bound is 20 s, far below the
 * stand-in's 600 s, so a stop that waited for the build fails, and a loaded machine does not. The stop's
 * own time (0.2 s by hand, docs/guide/robustness.md) is measured outside the tests. A build past its deadline
 * (set to 1 s) is stopped by the supervisor the same way.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { ROOT, tempDir, waitFor } from '../support/in-process.ts';

/** A stop that waits for the build (600 s or more) is caught; a loaded machine's few seconds are not. */
const BOUND_MS = 20_000;

/** pids of `sleep <marker>` (the stand-in build's grandchildren; the scripts that name it are not counted) */
function processesWith(marker: string, of = 'sleep'): number[] {
  const pids: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (
        readFileSync(`/proc/${name}/cmdline`, 'utf8').startsWith(of === 'sleep' ? `sleep\0${marker}\0` : `sh\0-c\0echo started`) &&
        readFileSync(`/proc/${name}/cmdline`, 'utf8').includes(marker)
      )
        pids.push(Number(name));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

async function interruptBuild(how: 'SIGTERM to the process' | 'Ctrl-C to its group', mode: 'sync' | 'async' = 'sync'): Promise<void> {
  const dir = tempDir('coldstart-ric-build-');
  const partial = path.join(dir, 'entry.partial-1');
  // a unique sleep length marks the stand-in build's grandchildren
  const marker = `${600 + Math.floor(Math.random() * 1000)}.${process.pid}`;
  const build = `echo started > "$0/started"; sleep ${marker} & sleep ${marker} & wait`;
  const call = mode === 'sync' ? 'runInterruptibleBuild' : 'runInterruptibleBuildAsync';
  const script =
    `import { ${call} } from ${JSON.stringify(path.join(ROOT, 'metrics/plan/ric-build.ts'))};\n` +
    // async: like the CLI, the process has signal handlers of its own, which keep it alive
    (mode === 'async' ? "for (const s of ['SIGINT', 'SIGTERM']) process.on(s, () => {});\n" : '') +
    `const r = await ${call}('sh', ['-c', ${JSON.stringify(build)}, ${JSON.stringify(partial)}], ` +
    `{ partial: ${JSON.stringify(partial)}, label: 'stand-in', logFile: ${JSON.stringify(path.join(partial, 'build.log'))} });\n` +
    'process.exit(r.status ?? 1);\n';
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: ROOT,
    stdio: 'ignore',
    detached: true,
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code, signal) => resolve(code ?? (signal ? -1 : null))));
  try {
    assert.ok(await waitFor(() => existsSync(path.join(partial, 'started')), 60_000), 'the stand-in build started');
    // the script writes `started` before it starts its two sleeps: on a loaded machine they come a moment later
    assert.ok(await waitFor(() => processesWith(marker).length === 2, 60_000), 'the two grandchildren run');
    const signalled = Date.now();
    if (how === 'SIGTERM to the process') process.kill(child.pid!, 'SIGTERM');
    else process.kill(-child.pid!, 'SIGINT');
    await exited;
    // the supervisor renames the partial folder to `.removing` before it removes it: on a Ctrl-C the process that started
    // it may exit first (it gets the SIGINT too), so nothing-left is waited for, within the same bound, not read at once
    const clean = await waitFor(() => processesWith(marker).length === 0 && readdirSync(dir).length === 0, BOUND_MS);
    const left = processesWith(marker);
    assert.ok(
      clean,
      `within ${BOUND_MS} ms of the signal: processes left ${left.join(', ') || 'none'}, partial folder left: ${existsSync(partial)}`,
    );
    assert.ok(Date.now() - signalled < BOUND_MS, 'the building process itself exited well before the build would have ended');
    assert.deepEqual(readdirSync(dir), [], 'nothing left in the cache folder');
  } finally {
    // a failed stop must not outlive the test: the stand-in build's group, then its sleeps
    for (const pid of processesWith(marker, 'build')) {
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        // gone meanwhile
      }
    }
    for (const pid of processesWith(marker)) process.kill(pid, 'SIGKILL');
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}

test('a SIGTERM while the client builds: the build and its grandchildren stop, the partial folder is removed', () =>
  interruptBuild('SIGTERM to the process'));

test('a Ctrl-C (SIGINT to the process group) while the client builds: the same', () => interruptBuild('Ctrl-C to its group'));

test('a SIGTERM to a process with its own signal handlers (the CLI) while the client builds: the same', () =>
  interruptBuild('SIGTERM to the process', 'async'));

test('a Ctrl-C to such a process group: the same', () => interruptBuild('Ctrl-C to its group', 'async'));

test('a build past its deadline (1 s here; 30 min shipped): stopped as a SIGTERM stops it, status 124, nothing left', async () => {
  const dir = tempDir('coldstart-ric-build-');
  const partial = path.join(dir, 'entry.partial-1');
  const marker = `${600 + Math.floor(Math.random() * 1000)}.${process.pid}`;
  const build = `echo started > "$0/started"; sleep ${marker} & sleep ${marker} & wait`;
  const script =
    `import { runInterruptibleBuildAsync } from ${JSON.stringify(path.join(ROOT, 'metrics/plan/ric-build.ts'))};\n` +
    `const r = await runInterruptibleBuildAsync('sh', ['-c', ${JSON.stringify(build)}, ${JSON.stringify(partial)}], ` +
    `{ partial: ${JSON.stringify(partial)}, label: 'stand-in', logFile: ${JSON.stringify(path.join(partial, 'build.log'))}, ` +
    'deadlineS: 1 });\n' +
    'process.exit(r.status ?? 1);\n';
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: ROOT,
    stdio: ['ignore', 'ignore', 'pipe'],
    detached: true,
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  try {
    // a guard, not a timing: the stand-in would run 600 s
    const status = await Promise.race([exited, new Promise<'late'>((resolve) => setTimeout(() => resolve('late'), 120_000).unref())]);
    assert.equal(status, 124, stderr);
    assert.match(stderr, /stand-in: did not end within its 1 s deadline: stopped it/);
    assert.ok(await waitFor(() => processesWith(marker).length === 0, BOUND_MS), `processes left: ${processesWith(marker).join(', ')}`);
    assert.ok(!existsSync(partial), 'the partial folder is removed');
  } finally {
    for (const pid of processesWith(marker)) process.kill(pid, 'SIGKILL');
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
  }
});
