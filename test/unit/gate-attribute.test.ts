/**
 * `gate --attribute`'s arithmetic and markdown without valgrind: each package's change between the two attributed
 * rounds, held to the app's total threshold of its total; the rows sorted by the size of the change; the line in the
 * verdict's area only with a regression; the folded table after the verdict's own markdown; $GITHUB_OUTPUT's name
 * of the package that grew most, with nothing but a name's characters; a failed attributed round as one line.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { failedAttribution, grewMost, packageAttribution, packageOutputs, withPackages } from '../../metrics/pipeline/gate-attribute.ts';

const base = new Map([['api', { '(app)': 200_000_000, express: 10_000_000, qs: 1_000_000, gone: 500_000 }]]);
const head = new Map([['api', { '(app)': 199_900_000, express: 10_050_000, qs: 3_000_000, fresh: 700_000 }]]);
// threshold 0.2 % of a 211.5 M total: ±423,000 instructions
const limits = [{ app: 'api', totalBase: 211_500_000, threshold: 0.002 }];

describe('gate --attribute: packages between the two attributed rounds', () => {
  const attribution = packageAttribution(base, head, limits);

  it("holds each package's change to the app's threshold of its total, largest change first", () => {
    assert.deepEqual(
      attribution.packages.map((p) => [p.package, p.change, p.verdict]),
      [
        ['qs', 2_000_000, 'grew'],
        ['fresh', 700_000, 'grew'],
        ['gone', -500_000, 'shrank'],
        ['(app)', -100_000, 'within'],
        ['express', 50_000, 'within'],
      ],
    );
    assert.equal(attribution.apps[0]!.limit, 423_000);
    // head: 213.65 M in all, 13.75 M of it in packages
    assert.equal(attribution.apps[0]!.attributedShare.toFixed(4), (13_750_000 / 213_650_000).toFixed(4));
    assert.equal(grewMost(attribution)!.package, 'qs');
  });

  it('puts the line under the verdict only with a regression, and the folded table at the end', () => {
    const verdict = '## Cold-start gate: **FAIL**: 1 regression(s)\n\nBase main …\n\n<details>cells</details>\n';
    const failed = withPackages(verdict, attribution, true);
    assert.ok(
      failed.startsWith(
        '## Cold-start gate: **FAIL**: 1 regression(s)\n\n' +
          '**Grew most** (--attribute): **qs**, +2.000 M instructions (+200.00 % of its own loading).\n\nBase main',
      ),
      failed,
    );
    assert.match(failed, /<\/details>\n\n<details><summary>Per package \(--attribute\): 5 rows; 6\.4 % of head's total/);
    assert.match(
      failed,
      /\n\| qs \| 1\.000 \| 3\.000 \| \+2\.000 \| \+200\.00 % \| grew \|\n\| fresh \| 0\.000 \| 0\.700 \| \+0\.700 \| new \| grew \|/,
    );
    assert.match(failed, /\| gone \| 0\.500 \| 0\.000 \| −0\.500 \| gone \| shrank \|/);
    const passed = withPackages(verdict.replace('FAIL', 'PASS'), attribution, false);
    assert.doesNotMatch(passed, /Grew most/);
    assert.match(passed, /Per package \(--attribute\)/);
    assert.equal(withPackages(verdict, undefined, true), verdict);
  });

  it("names the package in $GITHUB_OUTPUT with a name's characters only", () => {
    assert.equal(packageOutputs(attribution), 'grew-most=qs\n');
    const hostile = packageAttribution(new Map([['api', {}]]), new Map([['api', { 'x\ny=1': 9_000_000 }]]), limits);
    assert.equal(packageOutputs(hostile), 'grew-most=x_y_1\n');
    assert.equal(packageOutputs(undefined), '');
  });

  it('says in one line why there is no table when the attributed round failed, under the verdict with a regression', () => {
    const verdict = '## Cold-start gate: **FAIL**: 1 regression(s)\n\nBase main …\n';
    const failed = failedAttribution('the count of head failed: no log\n  at x.js:1 <b>');
    assert.equal(failed.reason, 'the count of head failed: no log   at x.js:1 <b>');
    const text = withPackages(verdict, failed, true);
    assert.match(
      text,
      /^## Cold-start gate: \*\*FAIL\*\*: 1 regression\(s\)\n\n\*\*Per package \(--attribute\): not counted: the count of head failed/,
    );
    assert.doesNotMatch(text, /<b>|<details>/);
    assert.match(withPackages(verdict.replace('FAIL', 'PASS'), failed, false), /\n\nPer package \(--attribute\): not counted: .*\n$/);
    assert.equal(packageOutputs(failed), 'grew-most=\n');
  });
});
