/**
 * An app's answer is bounded in time and in size (issue 37, class 2): a body that never ends fails
 * its sample at the sample's --timeout (the whole exchange has a deadline, not only an idle socket),
 * a body larger than MAX_ANSWER_BYTES fails at that byte and is never held whole, and neither leaves
 * a process behind. Nothing here is timed: the test's own timeout catches a hang.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { readSamples } from '../../metrics/store/samples-file.ts';
import { MAX_ANSWER_BYTES } from '../../metrics/measure/app-answer.ts';
import { CLI, processesWith, ROOT, runCli, tempDir } from '../support/helpers.ts';

/** An app on PORT that answers every request with `send(res)`; its marker names it in the process table. */
function app(dir: string, name: string, send: string): string {
  const file = path.join(dir, name);
  writeFileSync(
    file,
    `// ${name}
require('node:http').createServer((req, res) => { req.resume(); req.on('end', () => { ${send} }); })
  .listen(Number(process.env.PORT), '127.0.0.1');
`,
  );
  return file;
}

describe('answers bounded in time and size', { timeout: 240_000 }, () => {
  it('a body that streams forever fails the sample at --timeout, and the app is gone', () => {
    const dir = tempDir('coldstart-test-bounded-');
    // 64 KiB every 10 ms, never ended: the socket is never idle
    const entry = app(
      dir,
      'endless-body.js',
      `res.writeHead(200); const c = Buffer.alloc(65536, 97); setInterval(() => res.write(c), 10);`,
    );
    const out = path.join(dir, 'run');
    const result = runCli(
      ['measure', '--entry', entry, '--request', 'GET /', '--samples', '1', '--warmup', '0', '--timeout', '8', '--out', out],
      {
        timeoutMs: 180_000,
      },
    );
    assert.equal(result.status, 3, result.stderr);
    const [sample] = readSamples(path.join(out, 'samples.jsonl'));
    assert.ok(sample && !sample.ok);
    assert.match(String(sample.error), /no whole answer in time|passed \d+ bytes/);
    assert.deepEqual(processesWith('endless-body.js'), []);
  });

  it('a body that floods as fast as it is read fails at the cap, the runner under 300 MB (issue 46, item 3)', (t) => {
    const dir = tempDir('coldstart-test-bounded-');
    const entry = app(
      dir,
      'flood-body.js',
      `res.writeHead(200); const c = Buffer.alloc(65536, 97);
      (function more() { while (res.write(c)); res.once('drain', more); })();`,
    );
    const out = path.join(dir, 'run');
    const args = ['measure', '--entry', entry, '--request', 'GET /', '--samples', '1', '--warmup', '0', '--timeout', '60', '--out', out];
    const result = spawnSync('/usr/bin/time', ['-v', process.execPath, ...CLI, ...args], { cwd: ROOT, encoding: 'utf8', timeout: 180_000 });
    assert.equal(result.status, 3, result.stderr);
    const [sample] = readSamples(path.join(out, 'samples.jsonl'));
    assert.match(String(sample?.error), new RegExp(`passed ${MAX_ANSWER_BYTES} bytes`));
    const peakKb = Number(/Maximum resident set size \(kbytes\): (\d+)/.exec(result.stderr)?.[1]);
    t.diagnostic(`peak resident set ${peakKb} kB`);
    assert.ok(peakKb < 300 * 1024, `peak resident ${peakKb} kB`);
    assert.deepEqual(processesWith('flood-body.js'), []);
  });

  it('a body larger than the cap fails at the cap, and the app is gone', () => {
    const dir = tempDir('coldstart-test-bounded-');
    const mib = Math.ceil(MAX_ANSWER_BYTES / 1048576) * 4;
    const entry = app(
      dir,
      'huge-body.js',
      `res.writeHead(200); const c = Buffer.alloc(1048576, 97); let n = 0;
      (function more() { while (n < ${mib}) { n += 1; if (!res.write(c)) return res.once('drain', more); } res.end(); })();`,
    );
    const out = path.join(dir, 'run');
    const result = runCli(
      ['measure', '--entry', entry, '--request', 'GET /', '--samples', '1', '--warmup', '0', '--timeout', '60', '--out', out],
      {
        timeoutMs: 180_000,
      },
    );
    assert.equal(result.status, 3, result.stderr);
    const [sample] = readSamples(path.join(out, 'samples.jsonl'));
    assert.ok(sample && !sample.ok);
    assert.match(String(sample.error), new RegExp(`passed ${MAX_ANSWER_BYTES} bytes`));
    assert.deepEqual(processesWith('huge-body.js'), []);
  });
});
