/**
 * The sweep of stale cgroups (limits/detect.ts sweepStale) removes only what the tool made, on a fake cgroup
 * folder (this machine has cgroup v1; the case is v2's): on a delegated cgroup v2 a `--limits` run moves every
 * process of its cgroup (the user's shell among them) into a leaf `coldstart-runner-<pid>`, which stays when the
 * runner ends. A later run's sweep found that leaf's runner dead and SIGKILLed whatever was inside (its
 * cgroup.procs): the shell, or a run started from it. Now a runner's leaf is removed only when empty and its
 * processes are never signalled; a dead runner's sample cgroup (`coldstart-<pid>-<n>`) is still emptied.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { sweepStale } from '../../metrics/measure/limits/detect.ts';
import { tempDir, waitFor } from '../support/helpers.ts';

/** A pid no process has (above Linux's largest pid_max, 2^22). */
const DEAD_RUNNER = 2 ** 22 + 12345;

describe('the stale-cgroup sweep on a fake cgroup folder', { timeout: 60_000 }, () => {
  const children: ChildProcess[] = [];
  after(() => {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });

  /** A live process the tool did not start (a stand-in for the user's shell). */
  function bystander(): ChildProcess {
    const child = spawn('sleep', ['600'], { stdio: 'ignore' });
    children.push(child);
    return child;
  }

  it("never signals the processes in a dead runner's leaf, and keeps the leaf while they live", async () => {
    const parent = tempDir('coldstart-sweep-v2-');
    const shell = bystander();
    const leaf = path.join(parent, `coldstart-runner-${DEAD_RUNNER}`);
    mkdirSync(leaf);
    writeFileSync(path.join(leaf, 'cgroup.procs'), `${shell.pid}\n`);
    const removed = sweepStale(parent);
    assert.deepEqual(removed, []);
    assert.ok(existsSync(leaf));
    // a SIGKILL sent by the sweep would have ended it by now (a signal is delivered before kill() returns to the sender)
    assert.equal(await waitFor(() => shell.exitCode !== null || shell.signalCode !== null, 500), false, 'the bystander was killed');
  });

  it("removes a dead runner's empty leaf, and kills what is left in a dead runner's sample cgroup", async () => {
    const parent = tempDir('coldstart-sweep-v2-');
    const emptyLeaf = path.join(parent, `coldstart-runner-${DEAD_RUNNER}`);
    mkdirSync(emptyLeaf);
    const sampleProcess = bystander();
    const sample = path.join(parent, `coldstart-${DEAD_RUNNER}-3`);
    mkdirSync(sample);
    writeFileSync(path.join(sample, 'cgroup.procs'), `${sampleProcess.pid}\n`);
    const removed = sweepStale(parent);
    assert.deepEqual(removed, [emptyLeaf]);
    assert.ok(!existsSync(emptyLeaf));
    // a real cgroup folder is removed once its processes died; this fake one keeps its cgroup.procs file
    assert.ok(await waitFor(() => sampleProcess.signalCode === 'SIGKILL', 10_000), 'the sample process was killed');
  });

  it("leaves what is not named as the tool names its cgroups, and a live runner's", () => {
    const parent = tempDir('coldstart-sweep-v2-');
    for (const name of ['user.slice', 'coldstart-runner-x', `coldstart-runner-${process.pid}`, `coldstart-${process.pid}-1`, 'coldstart']) {
      mkdirSync(path.join(parent, name));
    }
    assert.deepEqual(sweepStale(parent), []);
  });
});
