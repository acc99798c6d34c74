/**
 * `--node` must be a JavaScript runtime by its own account (issue 20, finding 7): the check runs the
 * program, so it lives here with real processes (the other bounds are in test/unit/bounds.test.ts).
 */
import assert from 'node:assert/strict';
import { chmodSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import { runClis, tempDir, type CliResult } from '../support/helpers.ts';

describe('--node refuses what is not a JavaScript runtime', () => {
  const fakeDir = tempDir('coldstart-fake-node-');
  const fake = path.join(fakeDir, 'node');
  writeFileSync(fake, '#!/bin/sh\necho v20.0.0\n');
  chmodSync(fake, 0o755);
  const base = ['run', '--frameworks', 'node-http', '--routes', '1', '--samples', '1', '--warmup', '0'];
  const cases: { args: string[]; message: RegExp }[] = [
    { args: ['--node', '/bin/true'], message: /--node: "\/bin\/true" is not a JavaScript runtime/ },
    { args: ['--node', fake], message: /is not a JavaScript runtime: .* it printed "v20\.0\.0"/ },
  ];
  let results: CliResult[];
  before(async () => {
    const out = tempDir('coldstart-bounds-');
    results = await runClis(cases.map((c, i) => [...base, ...c.args, '--out', path.join(out, `r${i}`)]));
  });
  cases.forEach((c, i) => {
    it(c.args.join(' '), () => {
      const r = results[i]!;
      assert.equal(r.status, 2, r.stderr);
      assert.match(r.stderr, c.message);
      assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
    });
  });
});
