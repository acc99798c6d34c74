/**
 * The hidden `--debug-mode` of run and measure, as hyperfine's: the whole CLI (options, run folder,
 * report, exit code) over the fake sampler and cells, so nothing but the CLI itself is started and
 * the result is the same every time. A crash scripted for one framework is a failed sample (exit 3,
 * its reason the real runner's); a bad script is a usage error (exit 2).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const dir = mkdtempSync(path.join(os.tmpdir(), 'coldstart-debug-mode-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function cli(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, ['--import', 'tsx', path.join(ROOT, 'metrics', 'cli', 'main.ts'), ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 120_000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('run --debug-mode', () => {
  const selection = ['-f', 'node-http,fastify', '-r', '1,10', '--samples', '2', '--warmup', '0'];

  it('a scripted crash: the report of every sample, the crash a failed sample with the runner’s reason, exit 3', () => {
    const out = path.join(dir, 'crash');
    const result = cli(['run', '--debug-mode', 'crash=fastify', ...selection, '--out', out]);
    assert.equal(result.status, 3, result.stderr);
    assert.match(result.stderr, /^coldstart: 4 sample\(s\) failed/m);
    const samples = readFileSync(path.join(out, 'samples.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { ok: boolean; error?: string; cell: { framework: string } });
    assert.equal(samples.length, 8);
    for (const sample of samples) assert.equal(sample.ok, sample.cell.framework === 'node-http', JSON.stringify(sample));
    assert.match(samples.find((s) => !s.ok)!.error!, /exited with code 1/);
    assert.match(readFileSync(path.join(out, 'summary.md'), 'utf8'), /node-http/);
  });

  it('the same run twice: the same samples', () => {
    const [a, b] = ['a', 'b'].map((name) => {
      const out = path.join(dir, name);
      const result = cli(['run', '--debug-mode', ...selection, '--out', out]);
      assert.equal(result.status, 0, result.stderr);
      return readFileSync(path.join(out, 'samples.jsonl'), 'utf8');
    });
    assert.equal(a, b);
  });

  it('a script it cannot read: exit 2, one line', () => {
    const result = cli(['run', '--debug-mode', 'explode=fastify', ...selection, '--out', path.join(dir, 'bad')]);
    assert.equal(result.status, 2, result.stderr);
    assert.match(result.stderr, /^coldstart: --debug-mode: "explode=fastify" is not crash=/);
    assert.equal(result.stderr.trim().split('\n').length, 1);
  });
});
