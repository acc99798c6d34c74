/**
 * A closed output pipe and a hang-up are interrupts, handled as Ctrl-C is: every finished sample kept,
 * the report written, the signal's exit code (129 SIGHUP, 141 a closed pipe), no stack trace.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { readSamples } from '../../metrics/core/samples.ts';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const base = mkdtempSync(path.join(os.tmpdir(), 'coldstart-test-closed-'));
after(() => rmSync(base, { recursive: true, force: true }));

interface Ended {
  code: number | null;
  stderr: string;
}

/** The CLI with `args`; `during(child, out)` may close its pipes or signal it; resolves when it has ended. */
function runCliWith(args: string[], during: (child: ReturnType<typeof spawn>, out: string) => void): Promise<Ended> {
  const env = { ...process.env };
  delete env.NODE_EXTRA_CA_CERTS;
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'metrics', 'cli', 'main.ts'), ...args], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  during(child, args[args.indexOf('--out') + 1]!);
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, stderr })));
}

function waitForSamples(file: string, n: number, then: () => void): void {
  const timer = setInterval(() => {
    if (existsSync(file) && readFileSync(file, 'utf8').split('\n').filter(Boolean).length >= n) {
      clearInterval(timer);
      then();
    }
  }, 100);
}

const BASE = ['run', '--frameworks', 'node-http', '--warmup', '0'];
const RUN = [...BASE, '--routes', '1'];

describe('closed output and hang-up', { timeout: 180_000 }, () => {
  it('stdout closed by its reader: the report is written, no stack trace', async () => {
    const out = path.join(base, 'stdout');
    const ended = await runCliWith([...RUN, '--samples', '2', '--out', out], (child) => child.stdout!.destroy());
    assert.ok([0, 141].includes(ended.code!), `exit ${ended.code}: ${ended.stderr}`);
    assert.doesNotMatch(ended.stderr, /\n\s+at |internal error/);
    assert.equal(readSamples(path.join(out, 'samples.jsonl')).length, 2);
    assert.ok(existsSync(path.join(out, 'summary.md')));
  });

  it('SIGHUP while samples run: the finished ones kept and reported, exit 129', async () => {
    const out = path.join(base, 'hup');
    const ended = await runCliWith([...RUN, '--samples', '200', '--out', out], (child, dir) =>
      waitForSamples(path.join(dir, 'samples.jsonl'), 2, () => child.kill('SIGHUP')),
    );
    assert.equal(ended.code, 129, ended.stderr);
    assert.match(ended.stderr, /SIGHUP: stopping/);
    const samples = readSamples(path.join(out, 'samples.jsonl'));
    assert.ok(samples.length >= 2 && samples.length < 200, `${samples.length} samples`);
    assert.match(readFileSync(path.join(out, 'summary.md'), 'utf8'), /node-http/);
    const meta = JSON.parse(readFileSync(path.join(out, 'meta.json'), 'utf8')) as {
      end?: { interrupted?: boolean };
      interrupted?: boolean;
    };
    assert.equal(meta.end?.interrupted ?? meta.interrupted, true);
  });

  it('stderr closed while samples run: an interrupt at its next line, the finished samples reported, exit 141', async () => {
    // cell after cell: the line that ends the first cell is the first write after the close, whatever the machine's speed
    const out = path.join(base, 'stderr');
    const args = [...BASE, '--routes', '1,10,100', '--order', 'sequential', '--samples', '15', '--out', out];
    const ended = await runCliWith(args, (child, dir) => waitForSamples(path.join(dir, 'samples.jsonl'), 1, () => child.stderr!.destroy()));
    assert.equal(ended.code, 141);
    const samples = readSamples(path.join(out, 'samples.jsonl'));
    assert.ok(samples.length >= 15 && samples.length < 45, `${samples.length} samples`);
    assert.ok(existsSync(path.join(out, 'summary.md')));
  });
});

describe('an output stream that cannot be written (/dev/full: ENOSPC) is a closed output (issue 37, class 5)', () => {
  const selection = ['run', '--debug-mode', '-f', 'node-http,fastify', '-r', '1,10', '--samples', '2', '--warmup', '0'];
  for (const stream of ['stdout', 'stderr'] as const) {
    it(`${stream} on /dev/full: no stack trace, every sample and the report kept, exit 141`, () => {
      const out = path.join(base, `full-${stream}`);
      const full = openSync('/dev/full', 'w');
      const env = { ...process.env };
      delete env.NODE_EXTRA_CA_CERTS;
      try {
        const result = spawnSync(
          process.execPath,
          ['--import', 'tsx', path.join(ROOT, 'metrics', 'cli', 'main.ts'), ...selection, '--out', out],
          {
            cwd: ROOT,
            env,
            encoding: 'utf8',
            stdio: ['ignore', stream === 'stdout' ? full : 'pipe', stream === 'stderr' ? full : 'pipe'],
            timeout: 120_000,
          },
        );
        assert.equal(result.status, 141, result.stderr);
        const other = stream === 'stdout' ? result.stderr : result.stdout;
        assert.doesNotMatch(other, /\n\s+at |Error: ENOSPC/, 'no stack trace');
        assert.equal(readSamples(path.join(out, 'samples.jsonl')).length, 8);
        assert.ok(existsSync(path.join(out, 'summary.md')) && existsSync(path.join(out, 'report.html')), 'the report was written');
        assert.equal(existsSync(path.join(out, '.coldstart.lock')), false, 'the folder was released');
      } finally {
        closeSync(full);
      }
    });
  }
});
