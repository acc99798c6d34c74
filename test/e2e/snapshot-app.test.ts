/**
 * The startup snapshot variant of `measure` on apps written here (issue 29): an app that can be
 * snapshotted (node:net, which every Node line can put into a snapshot; node:http cannot be yet) is
 * built into a blob, started from it and answers as its plain build did; one whose top level reads
 * what the build froze (its own command line) is caught by the same-answer proof; one that leaves a
 * timer open is reported unsupported with the reason (a lever that cannot apply, not a failure) and
 * never started. One sample each, on the node running coldstart only.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import type { SampleRecord } from '../../metrics/core/samples.ts';
import { readSamples } from '../../metrics/store/samples-file.ts';
import { runCli, tempDir, type CliResult } from '../support/helpers.ts';

/** An HTTP answer written by hand on a net server: `body` is an expression of the top level's values. */
function netApp(top: string, body: string): string {
  return `const net = require('node:net');
${top}
const body = ${body};
net.createServer((socket) => socket.once('data', () => socket.end(
  'HTTP/1.1 200 OK\\r\\nContent-Type: text/plain\\r\\nContent-Length: ' + Buffer.byteLength(body) +
    '\\r\\nConnection: close\\r\\n\\r\\n' + body,
))).listen(Number(process.env.PORT), '127.0.0.1');
`;
}

const APPS = {
  // work done at the top level: what a snapshot saves
  same: netApp('const table = Array.from({ length: 1000 }, (_, i) => i * i);', "'sum ' + table.reduce((a, b) => a + b, 0)"),
  // the top level reads its command line: the build's, once in a snapshot
  frozen: netApp('', "'built: ' + process.execArgv.includes('--build-snapshot')"),
  // a timer left open at the end of the top level cannot go into a snapshot
  timer: netApp('setInterval(() => undefined, 60_000);', "'ok'"),
};

describe('measure --build plain,snapshot on three apps', () => {
  let dir: string;
  let run: CliResult;
  let samples: SampleRecord[];

  before(() => {
    const apps = tempDir('coldstart-snapshot-apps-');
    const entries = Object.entries(APPS).flatMap(([name, text]) => {
      writeFileSync(path.join(apps, `${name}.js`), text);
      return ['--entry', path.join(apps, `${name}.js`)];
    });
    dir = path.join(tempDir(), 'run');
    run = runCli(['measure', ...entries, '--build', 'plain,snapshot', '--samples', '1', '--warmup', '0', '--out', dir], {
      timeoutMs: 300_000,
    });
    samples = readSamples(path.join(dir, 'samples.jsonl'));
  });

  const of = (app: string, build: string) => samples.filter((s) => s.cell.framework === app && s.cell.build === build);
  const snapshotOf = (app: string): SampleRecord => {
    const sample = of(app, 'snapshot').at(0);
    assert.ok(sample, `${app}: no snapshot sample`);
    return sample;
  };

  it("exits 3: the frozen app's snapshot answers otherwise (a failure), the timer app's cannot apply; every plain build answered", () => {
    assert.equal(run.status, 3, run.stderr);
    for (const app of Object.keys(APPS)) assert.ok(of(app, 'plain')[0]?.ok, `${app}: ${of(app, 'plain')[0]?.error}`);
  });

  it('starts the app that can be snapshotted from its blob, which answers as the plain build did', () => {
    const sample = snapshotOf('same');
    assert.equal(sample.ok, true, sample.error);
    assert.match(run.stderr, /same \(node\): startup snapshot built in \d+ ms/);
  });

  it('catches the app whose answer the build froze: it really started from the snapshot', () => {
    const sample = snapshotOf('frozen');
    assert.equal(sample.ok, false);
    assert.match(sample.error ?? '', /answers differently from the plain build: body .*built: true.*built: false/);
  });

  it('reports the app that leaves a timer open as unsupported with the reason (a lever that cannot apply), and does not rank it', () => {
    const sample = snapshotOf('timer');
    assert.equal(sample.ok, false);
    assert.equal(sample.error, undefined);
    assert.equal(
      sample.unsupported,
      'cannot build a startup snapshot: Error: the app leaves Timeout open at the end of its top level (a timer, socket or file operation)',
    );
    const levers = readFileSync(path.join(dir, 'levers.md'), 'utf8');
    assert.match(
      levers,
      /\| snapshot \|[^\n]*not ranked: unsupported: cannot build a startup snapshot: Error: the app leaves Timeout open/,
    );
    assert.match(levers, /`node --snapshot-blob dist\/app\.blob --build-snapshot dist\/snapshot\.js`/);
  });
});
