/**
 * Deadlines that fire (issue 51): a SIGTERM sent to the containment helper's pid alone (as a deadline
 * that signals the process it started does) reaches the command the helper contains, and a command
 * that ignores it is killed with its tree once the grace period (COLDSTART_CONTAIN_GRACE_MS) is over.
 * Before, the helper ignored SIGTERM, so such a deadline never fired. Both with the helper's PID
 * namespace (where this machine allows one) and without. Linux with a C compiler only.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { containPath } from '../../metrics/measure/contain.ts';
import { tempDir, waitFor } from '../support/helpers.ts';

const helper = process.platform === 'linux' ? containPath() : undefined;
const skip = helper ? false : 'the containment helper cannot be built here (not Linux, or no C compiler)';

/** Helpers still alive when the file ends (a helper that ignores SIGTERM, as before the fix): killed with their tree. */
const started: number[] = [];
after(() => {
  for (const pid of started) {
    try {
      process.kill(pid, 'SIGUSR1');
    } catch {
      // gone
    }
  }
});

/** A node that writes `ready` (its host pid inside) and, on SIGTERM, `marker` (then exits, or not with `ignore`). */
function child(dir: string, ignore: boolean): string {
  const ready = JSON.stringify(path.join(dir, 'ready'));
  const marker = JSON.stringify(path.join(dir, 'sigterm'));
  const onTerm = ignore ? '' : 'process.exit(0);';
  return (
    `const fs = require('node:fs'); process.on('SIGTERM', () => { fs.writeFileSync(${marker}, 'x'); ${onTerm} });` +
    `fs.writeFileSync(${ready}, String(process.pid)); setInterval(() => {}, 1000);`
  );
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function contained(flags: string[], ignore: boolean) {
  const dir = tempDir('coldstart-contain-signals-');
  const run = spawn(helper!, [...flags, process.execPath, '-e', child(dir, ignore)], {
    stdio: 'ignore',
    env: { PATH: process.env.PATH, COLDSTART_CONTAIN_GRACE_MS: '1000' },
  });
  const ended = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
    run.on('exit', (code, signal) => resolve({ code, signal })),
  );
  assert.ok(await waitFor(() => existsSync(path.join(dir, 'ready')), 60_000), 'the contained node started');
  // the helper's pid alone, not its process group: what a deadline on the started process sends
  started.push(run.pid!);
  process.kill(run.pid!, 'SIGTERM');
  const end = await ended;
  return { dir, end, marker: existsSync(path.join(dir, 'sigterm')), ready: readFileSync(path.join(dir, 'ready'), 'utf8') };
}

const modes: [string, string[]][] = [
  ['without a namespace', []],
  ['in a PID namespace', ['--pid-ns']],
];

// a guard, not a timing: before the fix the helper ignored SIGTERM and the test waited for ever
describe('the containment helper passes SIGTERM on, and kills after the grace period', { skip, timeout: 120_000 }, () => {
  for (const [name, flags] of modes) {
    it(`${name}: SIGTERM to the helper reaches the contained child, which ends, and the helper ends as it did`, async (t) => {
      if (flags.includes('--pid-ns') && spawnSync(helper!, ['--probe-pid-ns']).status !== 0) {
        t.skip('no PID namespace here (needs root or user namespaces)');
        return;
      }
      const { end, marker } = await contained(flags, false);
      assert.equal(marker, true, 'the child wrote its SIGTERM marker');
      assert.deepEqual(end, { code: 0, signal: null });
    });

    it(`${name}: a child that ignores SIGTERM is killed once the grace period is over`, async (t) => {
      if (flags.includes('--pid-ns') && spawnSync(helper!, ['--probe-pid-ns']).status !== 0) {
        t.skip('no PID namespace here (needs root or user namespaces)');
        return;
      }
      const { end, marker, ready } = await contained(flags, true);
      assert.equal(marker, true, 'the child got SIGTERM');
      assert.equal(end.signal, 'SIGKILL', 'the helper ended as its SIGKILLed command');
      if (!flags.includes('--pid-ns')) assert.equal(alive(Number(ready)), false, 'the child is gone');
    });
  }
});
