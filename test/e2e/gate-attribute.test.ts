/**
 * `coldstart gate --attribute` end to end, for real (valgrind; skipped with the reason when it is absent). A test
 * writes a git repository holding an app (a node:http server) that requires two small packages committed in its
 * node_modules (no registry): `alpha`, which requires the scoped `@small/beta`. Head makes beta hash a longer chain
 * when it loads. The gate fails, names beta as the package that grew most, in the verdict's area and first in the
 * per-package table; alpha (whose own count does not hold beta's) and the app's own work are within their limit; the
 * attributed round's packages add up to its count to the first answer, and the verdict's rounds carry no cuts. A
 * second gate at once, of an app that ignores SIGTERM (its cuts' log is never written), keeps its verdict and says
 * why there is no per-package table.
 */
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import type { GateReport } from '../../metrics/pipeline/gate-verdict.ts';
import type { GateAttribution } from '../../metrics/pipeline/gate-attribute.ts';
import { readSamples } from '../../metrics/store/samples-file.ts';
import { tempDir } from '../support/helpers.ts';
import { GATE_SKIP as skip, GATE_TIMEOUT_MS as TIMEOUT_MS, git, runGateChild, type GateRun } from '../support/gate.ts';

const APP = `const http = require('node:http');
const alpha = require('alpha');
http
  .createServer((req, res) => res.end(alpha.digest.slice(0, 8) + alpha.beta.slice(0, 8)))
  .listen(Number(process.env.PORT || 3000), '127.0.0.1');
`;
/** A package's index.js: a sha256 chain of `rounds` links at load, then what it requires. */
const chain = (rounds: number, requires: string) => `const { createHash } = require('node:crypto');
let digest = '';
for (let i = 0; i < ${rounds}; i++) digest = createHash('sha256').update(digest + i).digest('hex');
module.exports = ${requires};
`;

function writePackage(repo: string, name: string, index: string): void {
  const dir = path.join(repo, 'node_modules', ...name.split('/'));
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name, version: '1.0.0', main: 'index.js' }));
  writeFileSync(path.join(dir, 'index.js'), index);
}

type Gate = GateRun<GateReport & { packages: GateAttribution }>;

const gate = (cwd: string, out: string, extra: string[] = []): Promise<Gate> =>
  runGateChild(cwd, out, ['--base', 'base', '--entry', 'app.js', '--attribute', ...extra]);

describe('coldstart gate --attribute: which package grew', { skip, timeout: TIMEOUT_MS }, () => {
  let status: number | null = null;
  let stdout = '';
  let stderr = '';
  let out = '';
  let report = undefined as unknown as Gate['report'];
  let stubborn = undefined as unknown as Gate;

  before(async () => {
    const root = tempDir('coldstart-gate-attribute-');
    const repo = path.join(root, 'repo');
    mkdirSync(repo);
    git(repo, 'init', '-q', '-b', 'main');
    writeFileSync(path.join(repo, 'app.js'), APP);
    writePackage(repo, 'alpha', chain(100, "{ digest, beta: require('@small/beta') }"));
    writePackage(repo, '@small/beta', chain(200, 'digest'));
    git(repo, 'add', '.');
    git(repo, 'commit', '-qm', 'base');
    git(repo, 'branch', 'base');
    // head: beta's loading hashes 400 more links (a few % of the start); alpha and the app are as they were
    writePackage(repo, '@small/beta', chain(600, 'digest'));
    git(repo, 'commit', '-qam', 'beta does more at load');
    // a clone whose app (base and head alike) ignores the runner's SIGTERM: the attributed round cannot read its log
    // (one round a side, the confirmation's second: only the attributed round's failure is asserted of it)
    const other = path.join(root, 'stubborn');
    git(root, 'clone', '-q', repo, other);
    git(other, 'branch', '-q', 'base', 'origin/base');
    const ignore = "process.on('SIGTERM', () => {});\n";
    for (const branch of ['base', 'main']) {
      git(other, 'checkout', '-q', branch);
      writeFileSync(path.join(other, 'app.js'), ignore + APP);
      git(other, 'commit', '-qam', 'the app ignores SIGTERM');
    }
    let main: Gate;
    [main, stubborn] = await Promise.all([
      gate(repo, path.join(root, 'out')),
      gate(other, path.join(root, 'out-stubborn'), ['--rounds', '1']),
    ]);
    ({ status, stdout, stderr, out, report } = main);
  });

  it('fails the commit and names the package that grew, in the verdict and first in the table', () => {
    assert.equal(status, 1, stderr);
    assert.match(
      stdout,
      /^## Cold-start gate: \*\*FAIL\*\*.*\n\n\*\*Grew most\*\* \(--attribute\): \*\*@small\/beta\*\*, \+\d+\.\d{3} M instructions/,
    );
    assert.match(stdout, /<details><summary>Per package \(--attribute\): 3 rows; \d+\.\d % of head's total/);
    const [first] = report.packages.packages;
    assert.equal(first!.package, '@small/beta');
    assert.equal(first!.verdict, 'grew');
    assert.equal(readFileSync(path.join(out, 'gate.md'), 'utf8'), stdout);
  });

  it('keeps the other package within its limit: the one that loads beta does not pay for it', (t) => {
    const { packages, apps } = report.packages;
    for (const row of packages) t.diagnostic(`${row.package}: ${row.base} → ${row.head} (${row.change}), ${row.verdict}`);
    const limit = apps[0]!.limit;
    const alpha = packages.find((p) => p.package === 'alpha')!;
    assert.equal(alpha.verdict, 'within');
    assert.ok(Math.abs(alpha.change) <= limit, `alpha: ${alpha.change} within ±${limit}`);
    // beta's 400 more links are beta's own; (app) may move the other way: a collection its later work would have
    // paid can run inside beta's loading instead (the garbage collector runs where an allocation triggers it)
    const beta = packages.find((p) => p.package === '@small/beta')!;
    assert.ok(beta.change > 10 * limit, `beta grew by ${beta.change}, the limit is ${limit}`);
    const app = packages.find((p) => p.package === '(app)')!;
    assert.ok(Math.abs(app.change) < beta.change, `(app) ${app.change} moved less than beta ${beta.change}`);
  });

  it("adds up: the attributed round's packages are its count to the first answer; the verdict's rounds are plain", (t) => {
    for (const side of ['base', 'head']) {
      const [sample] = readSamples(path.join(out, `${side}-attribute`, 'samples.jsonl'));
      const sum = Object.values(sample!.packages!).reduce((a, b) => a + b, 0);
      assert.equal(sum, sample!.instructions!.firstResponse, side);
      const [plain] = readSamples(path.join(out, `${side}-1`, 'samples.jsonl'));
      assert.equal(plain!.packages, undefined);
      // the attributed round's meta.json says its counts carry the cuts' own work; the plain rounds' do not
      const sampling = (dir: string) =>
        (JSON.parse(readFileSync(path.join(out, dir, 'meta.json'), 'utf8')) as { spec: { sampling: { countPackages?: boolean } } }).spec
          .sampling;
      assert.equal(sampling(`${side}-attribute`).countPackages, true);
      assert.equal(sampling(`${side}-1`).countPackages, undefined);
      const cost = sample!.instructions!.firstResponse! - plain!.instructions!.firstResponse!;
      t.diagnostic(
        `${side}: attributed ${sample!.instructions!.firstResponse} (${sample!.durationMs} ms) vs plain ` +
          `${plain!.instructions!.firstResponse} (${plain!.durationMs} ms): the cuts cost ${cost} instructions`,
      );
    }
    assert.match(
      readFileSync(path.join(out, 'gate.md'), 'utf8'),
      /\| @small\/beta \| \d+\.\d{3} \| \d+\.\d{3} \| \+\d+\.\d{3} \| \+\d+\.\d\d % \| grew \|/,
    );
  });

  it('keeps the verdict when the attributed round fails, and says why there is no table', () => {
    const { status: code, stdout: text, stderr: errors, report: json } = stubborn;
    assert.equal(code, 1, errors);
    assert.match(text, /^## Cold-start gate: \*\*FAIL\*\*/);
    const line =
      /\n\n\*\*Per package \(--attribute\): not counted: the count of (base|head) failed: --count-packages: the package cuts' log/;
    assert.match(text, line);
    assert.doesNotMatch(text, /<details><summary>Per package/);
    assert.match(json.packages.reason!, /log was not written \(the app did not exit normally on SIGTERM\)/);
    assert.deepEqual(json.packages.packages, []);
  });
});
