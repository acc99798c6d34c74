/** lambda:run refuses Lambda Web Functions in one line, with why (exit 2), by --target and by a Web Functions package. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { writeWebPackage } from '../../metrics/cloud/web-package.ts';
import { runClis, tempDir } from '../support/helpers.ts';
import { EXIT_USAGE } from '../../metrics/core/exit-codes.ts';

test('lambda:run --target lambda-web, or a lambda-web package, is refused with the reason', async () => {
  const dir = tempDir();
  const bundle = path.join(dir, 'server.js');
  writeFileSync(bundle, "require('node:http').createServer((q, s) => s.end('ok')).listen(8080);\n");
  const pkg = path.join(dir, 'pkg');
  writeWebPackage(pkg, [{ cell: { framework: 'hono', variant: 'plain', routes: 1 }, bundle }]);
  const out = path.join(dir, 'out');
  const results = await runClis([
    ['lambda-run', '--target', 'lambda-web', '--region', 'us-east-1', '-o', out, '--dry-run'],
    ['lambda-run', pkg, '--region', 'us-east-1', '-o', out, '--dry-run'],
  ]);
  for (const r of results) {
    assert.equal(r.status, EXIT_USAGE, r.stderr);
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
    assert.match(r.stderr, /lambda:run does not deploy Lambda Web Functions: .* lambda:package --target lambda-web/);
  }
  assert.equal(existsSync(out), false);
});
