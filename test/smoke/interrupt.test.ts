/**
 * Smoke (npm test): Ctrl-C during a real run: SIGINT to the runner keeps the finished samples, writes
 * the report from them, exits 130 and leaves no child behind. The launchers' copies of the signal
 * (npm, make) and SIGKILL are test/e2e/reliability.test.ts's, every fault at every step the fault
 * sweep's (npm run test:all).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { readSamples } from '../../metrics/store/samples-file.ts';
import { CLI, processesWith, ROOT, tempDir, waitFor } from '../support/helpers.ts';

describe('smoke: Ctrl-C during a run', () => {
  it('keeps finished samples, writes the report, exits 130 and leaves no process behind', async () => {
    const dir = path.join(tempDir('coldstart-smoke-interrupt-'), 'run');
    // 13 routes: a file name no other smoke test runs, so the process check below sees this run's children
    const args = ['run', '--frameworks', 'node-http', '--routes', '13', '--samples', '500', '--warmup', '0', '--out', dir];
    const child = spawn(process.execPath, [...CLI, ...args], { cwd: ROOT, stdio: 'ignore' });
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const samplesFile = path.join(dir, 'samples.jsonl');
    const started = await waitFor(() => existsSync(samplesFile) && readFileSync(samplesFile, 'utf8').split('\n').length > 2, 120_000);
    assert.ok(started, 'the run wrote samples');
    child.kill('SIGINT');
    assert.equal(await exited, 130);
    const samples = readSamples(samplesFile);
    assert.ok(samples.length >= 2 && samples.length < 500, `${samples.length} samples`);
    assert.ok(
      samples.every((s) => s.ok),
      'an interrupted sample is not recorded as a failure',
    );
    assert.match(readFileSync(path.join(dir, 'summary.md'), 'utf8'), /interrupted: partial results/);
    // this checkout's children only: another checkout on the machine may run the same file name
    const ours = (pid: number) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(ROOT);
      } catch {
        return false;
      }
    };
    assert.deepEqual(processesWith('13-startup-node-http-routes.js').filter(ours), []);
  });
});
