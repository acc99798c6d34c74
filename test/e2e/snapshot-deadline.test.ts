/**
 * A startup-snapshot build that listens and never settles (issue 51): a tiny server app, written here,
 * whose top level listens, built under the containment helper as the pipeline builds it
 * (wrappedBuilder(withContainment)) with a short deadline (the shipped one is 120 s), is stopped at
 * its deadline and named as such, with the time allowed and the time it ran. Before, the deadline's
 * signal did not reach the build and the run waited on it.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { withContainment } from '../../metrics/measure/contain.ts';
import { buildSnapshot, wrappedBuilder } from '../../metrics/plan/snapshot.ts';
import { tempDir } from '../support/helpers.ts';

// listens once the top level has ended (an async start(), as a fastify app's `await app.listen()`)
const SERVER = `const net = require('node:net');
async function start() {
  await Promise.resolve();
  net.createServer((socket) => socket.end('ok')).listen(0, '127.0.0.1');
}
start();
`;

// a guard, not a timing: a deadline that does not fire would leave the file waiting
describe('a snapshot build that listens', { timeout: 120_000 }, () => {
  it('is stopped at its deadline and named as such', () => {
    const dir = tempDir('coldstart-snapshot-deadline-');
    const bundle = path.join(dir, 'server.js');
    writeFileSync(bundle, SERVER);
    const outcome = buildSnapshot(process.execPath, bundle, {
      env: { PATH: process.env.PATH },
      cwd: dir,
      builder: wrappedBuilder(withContainment),
      deadlineMs: 3000,
    });
    const error = outcome.ok ? 'built' : outcome.error;
    assert.match(
      error,
      new RegExp(
        '^cannot build a startup snapshot: the build did not end within its 3 s deadline ' +
          'and was stopped after [\\d.]+ s \\(its top level never settles: a server that listens',
      ),
    );
  });
});
