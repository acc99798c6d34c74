/**
 * Containment without cgroups (issue 37, class 4): an app whose child leaves the session (setsid) with
 * an empty environment, so the COLDSTART_OWNER mark is lost, and forks a daemon that ignores SIGTERM.
 * After `measure` (timed, and counted under valgrind) nothing it started is alive: the daemon stayed
 * under the sample's containment helper (metrics/measure/contain.ts), which killed it with the
 * sample. Without the helper (COLDSTART_CONTAIN=0: setpriv and the mark only) the same daemon
 * survives the run: the control that shows what the helper does. The helper itself ends as its
 * command ended (exit code or signal), kills the tree on SIGUSR1, and its command keeps the pid the
 * target reads. Linux only; the counted case needs valgrind.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { containedPid, containPath } from '../../metrics/measure/contain.ts';
import { killBelow } from '../../metrics/measure/process-tree.ts';
import { findCountTools } from '../../metrics/measure/counting.ts';
import { loadedModules } from '../../metrics/measure/loaded-modules.ts';
import { readSamples } from '../../metrics/store/samples-file.ts';
import { CLI, processesWith, ROOT, runCli, tempDir, waitFor } from '../support/helpers.ts';

const helper = process.platform === 'linux' ? containPath() : undefined;
const skip = helper ? false : 'the containment helper cannot be built here (not Linux, or no C compiler)';
const fixture = path.join(ROOT, 'test', 'fixtures', 'daemonize-bare.js');

/** Kill what a test left on purpose (the control's escaped daemon), by pid. */
const strays: number[] = [];
after(() => {
  for (const pid of strays) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
});

function measure(marker: string, extra: string[], env?: NodeJS.ProcessEnv) {
  const out = path.join(tempDir('coldstart-contain-'), 'run');
  const run = runCli(['measure', '--entry', `${fixture} ${marker}`, '--request', 'GET /', '--out', out, ...extra], {
    timeoutMs: 600_000,
    ...(env ? { env } : {}),
  });
  return { run, out };
}

describe('no daemon escapes a sample (containment helper)', { skip }, () => {
  it('measure: the setsid, empty-environment daemon and its parent are gone when the run ends', async () => {
    const marker = `coldstart-contain-timed-${process.pid}`;
    const { run, out } = measure(marker, ['--samples', '2', '--warmup', '0']);
    assert.equal(run.status, 0, run.stderr);
    const samples = readSamples(path.join(out, 'samples.jsonl'));
    assert.equal(samples.length, 2);
    for (const s of samples) assert.ok(s.ok, s.error);
    // each sample started a daemon (the app ran), and none is alive
    assert.ok(await waitFor(() => processesWith(marker).length === 0, 2000), `left alive: ${processesWith(marker).join(', ')}`);
  });

  it('the control: without the helper (COLDSTART_CONTAIN=0) the same daemon survives the run', () => {
    const marker = `coldstart-contain-control-${process.pid}`;
    const { run } = measure(marker, ['--samples', '1', '--warmup', '0'], { ...process.env, COLDSTART_CONTAIN: '0' });
    assert.equal(run.status, 0, run.stderr);
    const daemons = processesWith(`${marker}-daemon`);
    strays.push(...daemons);
    assert.equal(daemons.length, 1, 'the mark alone does not find a daemon with an empty environment');
    const environ = readFileSync(`/proc/${daemons[0]}/environ`, 'latin1');
    assert.equal(environ.includes('COLDSTART_OWNER='), false, 'the daemon carries no mark');
  });

  it('a runner killed with SIGKILL: the helper (told by its parent-death signal) kills the sample in flight and the daemon', async () => {
    const marker = `coldstart-contain-killed-${process.pid}`;
    const out = path.join(tempDir('coldstart-contain-'), 'run');
    const args = ['measure', '--entry', `${fixture} ${marker}`, '--request', 'GET /', '--samples', '200', '--warmup', '0', '--out', out];
    const runner = spawn(process.execPath, [...CLI, ...args], { cwd: ROOT, stdio: 'ignore' });
    const daemon = () => processesWith(`${marker}-daemon`);
    assert.ok(await waitFor(() => daemon().length > 0, 60_000), 'a sample started its daemon');
    runner.kill('SIGKILL');
    assert.ok(await waitFor(() => processesWith(marker).length === 0, 5000), `left alive: ${processesWith(marker).join(', ')}`);
  });

  it("bisect's module listing (one unrecorded run of the app): contained too, the app's own arguments passed", async () => {
    const marker = `coldstart-contain-listing-${process.pid}`;
    const listed = loadedModules(fixture, path.dirname(fixture), [marker]);
    assert.ok(listed.ok, listed.ok ? '' : listed.reason);
    assert.ok(
      listed.modules.some((m) => m.file === 'node:http'),
      'it listed what the app loaded',
    );
    // the app ran with its argument (the daemon carries the marker), and nothing it started is alive
    assert.ok(await waitFor(() => processesWith(marker).length === 0, 2000), `left alive: ${processesWith(marker).join(', ')}`);
  });

  it(
    'a counted run (valgrind): nothing it started is alive either',
    { skip: findCountTools() ? false : 'valgrind not on PATH' },
    async () => {
      const marker = `coldstart-contain-counted-${process.pid}`;
      const { run, out } = measure(marker, ['--measure', 'instructions', '--samples', '1']);
      assert.equal(run.status, 0, run.stderr);
      const [sample] = readSamples(path.join(out, 'samples.jsonl'));
      assert.ok(sample?.ok, sample?.error);
      assert.ok(sample.instructions?.firstResponse, 'counted through the helper (vgdb found valgrind by the command pid)');
      assert.ok(await waitFor(() => processesWith(marker).length === 0, 2000), `left alive: ${processesWith(marker).join(', ')}`);
    },
  );
});

describe('the containment helper itself', { skip }, () => {
  it('ends as its command ended: the exit code, or the signal', () => {
    assert.equal(spawnSync(helper!, ['sh', '-c', 'exit 7']).status, 7);
    const killed = spawnSync(helper!, ['sh', '-c', 'kill -TERM $$']);
    assert.equal(killed.signal, 'SIGTERM');
    const missing = spawnSync(helper!, ['coldstart-no-such-command']);
    assert.equal(missing.status, 127);
    assert.match(missing.stderr.toString(), /coldstart-no-such-command: No such file or directory/);
  });

  it('its command is its child (the pid a target reads); SIGUSR1 kills the whole tree, a SIGTERM-proof daemon included', async () => {
    const marker = `coldstart-contain-usr1-${process.pid}`;
    const daemon = `process.on('SIGTERM', () => {}); setInterval(() => {}, 1000)`;
    const script = `trap '' TERM; setsid -f env -i "$0" -e "$1" ${marker}-daemon; exec sleep 999`;
    const child = spawn(helper!, ['sh', '-c', script, process.execPath, daemon], { detached: true, stdio: 'ignore' });
    const ended = new Promise<NodeJS.Signals | null>((resolve) => child.once('exit', (_code, signal) => resolve(signal)));
    // the daemon itself (not the shell or setsid, whose command lines name it too)
    const daemons = () => processesWith(`${marker}-daemon`).filter((pid) => cmdline(pid).startsWith(`${process.execPath}\0-e`));
    assert.ok(await waitFor(() => daemons().length === 1 && ancestry(daemons()[0]!).includes(child.pid!), 5000), 'the daemon started');
    const [daemonPid] = daemons();
    assert.ok(ancestry(daemonPid!).includes(child.pid!), 'the orphaned daemon was handed to the helper, not to init');
    const command = containedPid(child.pid!);
    assert.ok(command !== undefined && command !== child.pid);
    assert.ok(cmdline(command).startsWith('sleep\x00999'), "the command exec'd in the helper's child");
    // the group's SIGTERM: the command (trap), the daemon (its own session) and the helper stay
    process.kill(-child.pid!, 'SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal(child.exitCode, null);
    assert.equal(child.signalCode, null);
    process.kill(child.pid!, 'SIGUSR1');
    assert.equal(await ended, 'SIGKILL', 'it ends as its command did (SIGKILLed)');
    assert.deepEqual(processesWith(`${marker}-daemon`), [], 'the daemon is gone');
  });
});

describe("the helper in a PID namespace, and the runner's sweep of a stopped helper", { skip }, () => {
  const namespaces = spawnSync(helper ?? 'false', ['--probe-pid-ns']).status === 0;
  const noNamespace = namespaces ? false : 'no PID namespace here (not root, no user namespaces)';

  it('--pid-ns: the command is pid 2 under its own init, and the helper ends as it ended', { skip: noNamespace }, () => {
    const seen = spawnSync(helper!, ['--pid-ns', 'sh', '-c', 'echo $$ $PPID; exit 7'], { encoding: 'utf8' });
    assert.equal(seen.status, 7);
    assert.equal(seen.stdout.trim(), '2 1');
    assert.equal(spawnSync(helper!, ['--pid-ns', 'sh', '-c', 'kill -SEGV $$']).signal, 'SIGSEGV');
    assert.equal(spawnSync(helper!, ['--pid-ns', 'coldstart-no-such-command']).status, 127);
  });

  it('--pid-ns: init ignores the SIGKILL and SIGSTOP of the app, and its end kills the daemon', { skip: noNamespace }, async () => {
    const marker = `coldstart-contain-init-${process.pid}`;
    const script = `setsid -f env -i "$0" -e "setInterval(() => {}, 1000)" ${marker}-daemon; kill -KILL $PPID; kill -STOP 1; echo alive`;
    const run = spawnSync(helper!, ['--pid-ns', 'sh', '-c', script, process.execPath], { encoding: 'utf8', timeout: 20_000 });
    assert.equal(run.status, 0, run.stderr);
    assert.equal(run.stdout.trim(), 'alive');
    assert.ok(await waitFor(() => processesWith(`${marker}-daemon`).length === 0, 2000), 'the daemon died with the namespace');
  });

  it('a helper the app stopped: killBelow kills its whole tree, then the helper', async () => {
    const marker = `coldstart-contain-stopped-${process.pid}`;
    const script = `setsid -f env -i "$0" -e "setInterval(() => {}, 1000)" ${marker}-daemon; kill -STOP $PPID; exec sleep 1000`;
    const child = spawn(helper!, ['sh', '-c', script, process.execPath], { detached: true, stdio: 'ignore' });
    const ended = new Promise((resolve) => child.once('exit', resolve));
    const state = () => readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1]?.[0];
    let command: number | undefined;
    try {
      const started = () => {
        command = containedPid(child.pid!);
        // the daemon itself (the helper's and the shell's command lines name it too)
        const daemons = processesWith(`${marker}-daemon`).filter((pid) => cmdline(pid).startsWith(`${process.execPath}\0-e`));
        return state() === 'T' && daemons.length === 1 && cmdline(command ?? 0).startsWith('sleep');
      };
      assert.ok(await waitFor(started, 30_000), 'the helper is stopped, its command and the daemon below it');
    } finally {
      // whatever the assertion said: nothing of this tree stays (a stopped helper would keep the file running)
      killBelow(child.pid!);
    }
    await ended;
    assert.ok(await waitFor(() => processesWith(marker).length === 0, 2000), `left alive: ${processesWith(marker).join(', ')}`);
    assert.ok(await waitFor(() => !cmdline(command!).startsWith('sleep'), 2000), 'the command is gone');
  });
});

function cmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return '';
  }
}

/** The pids above `pid` up to init. */
function ancestry(pid: number): number[] {
  const chain: number[] = [];
  let at = pid;
  for (let i = 0; i < 64 && at > 1; i++) {
    try {
      const stat = readFileSync(`/proc/${at}/stat`, 'utf8');
      at = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      chain.push(at);
    } catch {
      break;
    }
  }
  return chain;
}
