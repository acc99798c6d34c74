/**
 * bisect's per-package table of a counted bisect (which packages' loaded code grew), its slim step
 * folders, and the registry's list of versions: split from bisect.test.ts, with the same planted releases.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { loadChanges, versionRange } from '../../metrics/analyse/bisect.ts';
import { loadByPackage } from '../../metrics/core/packages.ts';
import { UsageError } from '../../metrics/core/errors.ts';

import { packagesTable, runBisect, type BisectDeps, type StepLoad } from '../../metrics/pipeline/bisect.ts';
import { LOADED_FILE, publishedVersions, slimStep, versionList } from '../../metrics/pipeline/bisect-deps.ts';
import { tempDir } from '../support/in-process.ts';

import { options, planted, RELEASES } from '../support/bisect-fixtures.ts';

describe("the packages whose loaded code changed most (a counted bisect's per-package table)", () => {
  const nodeList = (n: number) => Array.from({ length: n }, (_, i) => `internal/m${i}`);
  /** planted lists: from the culprit on, 11 more of Node's modules (node:http2 among them), a new package, fastify 443 bytes smaller */
  const load = (v: string, culprit: string): StepLoad => {
    const late = RELEASES.indexOf(v) >= RELEASES.indexOf(culprit);
    return {
      packages: [
        { name: '(app)', modules: 1, bytes: 5011 },
        { name: '(node)', modules: late ? 158 : 147, bytes: 0 },
        { name: 'fastify', modules: 28, bytes: late ? 232_841 : 233_284 },
        { name: 'avvio', modules: 6, bytes: 40_000 },
        ...(late ? [{ name: 'new-dep', modules: 3, bytes: 12_288 }] : []),
      ],
      node: late ? [...nodeList(147), 'http2', 'internal/http2/core'] : nodeList(147),
    };
  };
  it('compares the last good release with the culprit, in bisect.md and in the outcome the console prints', async () => {
    const dir = tempDir('coldstart-bisect-');
    const culprit = RELEASES[13]!;
    const asked: string[] = [];
    const outcome = await runBisect(options(dir), {
      candidates: (o) => versionRange(RELEASES, o.good, o.bad, o),
      log: () => {},
      measure: (v) => Promise.resolve(planted(RELEASES, culprit)(v)),
      loaded: (v, stepDir) => {
        asked.push(`${v} ${path.basename(stepDir)}`);
        return Promise.resolve(load(v, culprit));
      },
    });
    assert.deepEqual(
      asked,
      [`${RELEASES[12]} ${RELEASES[12]}`, `${culprit} ${culprit}`],
      'the last good one and the culprit, each from its step folder',
    );
    const table = packagesTable(outcome.packages!);
    // most modules moved first: Node's own (+11), then the new package (+3), then fastify (bytes only); avvio unchanged is left out
    assert.deepEqual(table.slice(2, 6), [
      '| (node) | 147 | 158 | +11 | – | – | – |',
      '| new-dep | 0 | 3 | +3 | 0.0 | 12.0 | +12.0 |',
      '| fastify | 28 | 28 | +0 | 227.8 | 227.4 | -0.4 (-0.19 %) |',
      '| all loaded code | 182 | 196 | +14 | 271.8 | 283.3 | +11.6 (+4.26 %) |',
    ]);
    assert.ok(!table.some((line) => line.includes('avvio')));
    assert.ok(table.includes(`Node's own modules loaded at ${culprit} only: http2, internal/http2/core.`));
    const report = readFileSync(path.join(dir, 'bisect.md'), 'utf8');
    assert.ok(report.includes(`## Packages whose loaded code changed most, ${RELEASES[12]} → ${culprit}\n`));
    assert.ok(report.includes(table.join('\n')));
  });
  it("escapes a package folder's name, a profile's package and the command line in bisect.md (issue 46, item 5)", async () => {
    const dir = tempDir('coldstart-bisect-');
    const culprit = RELEASES[13]!;
    const hostile = 'evil\u001b]0;owned\u0007\u202e<b>x';
    const outcome = await runBisect(options(dir, { command: `coldstart bisect --name ${hostile}` }), {
      candidates: (o) => versionRange(RELEASES, o.good, o.bad, o),
      log: () => {},
      measure: (v) => Promise.resolve(planted(RELEASES, culprit)(v)),
      shares: (stepDir) => (path.basename(stepDir) === culprit ? { [hostile]: 0.4 } : { [hostile]: 0.1 }),
      loaded: (v) => {
        const late = RELEASES.indexOf(v) >= RELEASES.indexOf(culprit);
        return Promise.resolve({ packages: [{ name: hostile, modules: late ? 3 : 1, bytes: 100 }], node: [] });
      },
    });
    assert.equal(outcome.verdict.kind, 'found');
    const report = readFileSync(path.join(dir, 'bisect.md'), 'utf8');
    // eslint-disable-next-line no-control-regex
    assert.doesNotMatch(report, /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e]/, 'no control or bidi character');
    assert.ok(!report.replace(/`[^`]*`/g, '').includes('<b>'), 'no raw HTML outside a code span');
    assert.ok(report.includes('- **Command:** `coldstart bisect --name evil ]0;owned <b>x`'), 'the command line as a code span');
    assert.ok(report.includes('| evil \\]0;owned &lt;b&gt;x | 1 | 3 | +2 |'), report);
  });
  it('compares the two ends when there is no regression, and says why when a list is missing', async () => {
    const dir = tempDir('coldstart-bisect-');
    const flat: BisectDeps = {
      candidates: (o) => versionRange(RELEASES, o.good, o.bad, o),
      log: () => {},
      measure: (v) => Promise.resolve({ kind: 'measured', value: 1_000_000_000 - RELEASES.indexOf(v), phases: {} }),
      loaded: (v) => Promise.resolve(v === RELEASES[19] ? 'its file did not list its modules: exited 1' : load(v, RELEASES[19]!)),
    };
    const outcome = await runBisect(options(dir), flat);
    assert.equal(outcome.verdict.kind, 'no-change');
    assert.deepEqual(outcome.packages, {
      from: RELEASES[0],
      to: RELEASES[19],
      missing: `fake@${RELEASES[19]}: its file did not list its modules: exited 1`,
    });
    assert.match(
      readFileSync(path.join(dir, 'bisect.md'), 'utf8'),
      /No per-package table: fake@2\.3\.4: its file did not list its modules: exited 1\./,
    );
  });
  it('sums the loaded modules per package: scoped packages, the innermost node_modules, the app, Node', () => {
    const by = loadByPackage([
      { file: '/v/node_modules/fastify/fastify.js', bytes: 100 },
      { file: '/v/node_modules/fastify/lib/route.js', bytes: 50 },
      { file: '/v/node_modules/@fastify/error/index.js', bytes: 7 },
      { file: '/v/node_modules/fastify/node_modules/semver/index.js', bytes: 3 },
      { file: '/v/generated/10-startup-fastify-routes.js', bytes: 5000 },
      { file: 'node:http2', bytes: 0 },
    ]);
    assert.deepEqual(by, [
      { name: '(app)', modules: 1, bytes: 5000 },
      { name: '(node)', modules: 1, bytes: 0 },
      { name: '@fastify/error', modules: 1, bytes: 7 },
      { name: 'fastify', modules: 2, bytes: 150 },
      { name: 'semver', modules: 1, bytes: 3 },
    ]);
    assert.deepEqual(loadChanges(by, by), []);
  });
});

describe('slim step folders', () => {
  it('drops report.html and the charts, keeps the samples, meta.json, summaries and the loaded list', () => {
    const dir = tempDir('coldstart-bisect-');
    const keep = ['samples.jsonl', 'meta.json', 'summary.md', 'summary.csv', 'scaling.md', 'attribution.json', LOADED_FILE];
    for (const file of [...keep, 'report.html', 'chart-phases.svg', 'chart-phases-instructions.svg'])
      writeFileSync(path.join(dir, file), 'x');
    slimStep(dir);
    assert.deepEqual(readdirSync(dir).sort(), [...keep].sort());
    slimStep(path.join(dir, 'none'));
  });
});

describe("the registry's list of versions", () => {
  it('reads a list, or the one string npm gives for a package with a single version; anything else is one line, exit 2', () => {
    assert.deepEqual(versionList('["1.0.0", "1.1.0", 3]', 'ms'), ['1.0.0', '1.1.0']);
    assert.deepEqual(versionList('"2.0.0"', 'ms'), ['2.0.0']);
    assert.deepEqual(versionList('{}', 'ms'), []);
    // a name bisect.json's schema would refuse on resume is no release (issue 46, item 4)
    assert.deepEqual(versionList('["1.0.0", "1.0.1\\u001b]0;x\\u0007", "2.0.0-rc.1", "3.0.0+b.1"]', 'ms'), [
      '1.0.0',
      '2.0.0-rc.1',
      '3.0.0+b.1',
    ]);
    const from = tempDir('coldstart-bisect-from-');
    for (const name of ['ms-1.0.0.tgz', 'ms-1.0.1\u001b]0;x\u0007.tgz', 'ms-2.0.0.tgz']) writeFileSync(path.join(from, name), '');
    assert.deepEqual(publishedVersions('ms', from).sort(), ['1.0.0', '2.0.0']);
    assert.throws(
      () => versionList('<html>proxy error</html>', 'ms'),
      (e: unknown) => e instanceof UsageError && e.message === "--package ms: the registry's list of versions is not JSON",
    );
  });
});
