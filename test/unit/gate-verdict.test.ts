/**
 * The gate's verdict (pipeline/gate-verdict.ts): a phase's threshold is the larger of --threshold and
 * FLOOR_MULTIPLE × the A/A spread of its sides; the PR comment puts the verdict first, the cells that moved
 * next, the rest folded; outside text (a branch name) is escaped; the key figures for $GITHUB_OUTPUT.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CYCLES_AS_TIME } from '../../metrics/analyse/proxy-fit.ts';
import {
  FLOOR_MULTIPLE,
  gateMarkdown,
  gateOutputs,
  judge,
  modelledMs,
  phasesOf,
  spreadOf,
  type GateReport,
} from '../../metrics/pipeline/gate-verdict.ts';

describe('gate verdict', () => {
  it('cuts the phases at the marks', () => {
    assert.deepEqual(phasesOf({ start: 100, listen: 250, firstResponse: 300 }), { boot: 100, startup: 150, firstRequest: 50, total: 300 });
    assert.equal(phasesOf({ start: 100 }), undefined);
    // a generated cell's marks split its start-up in three
    assert.deepEqual(phasesOf({ start: 100, imported: 160, startup: 200, listen: 250, firstResponse: 300 }), {
      boot: 100,
      import: 60,
      registration: 40,
      listen: 50,
      firstRequest: 50,
      total: 300,
    });
  });

  it('holds a cell to the larger of the threshold and the stated multiple of its floor', () => {
    assert.equal(spreadOf([1000]), 0);
    assert.equal(spreadOf([1000, 1010, 1005]), 10 / 1005);
    // quiet sides: +0.5 % beyond a 0.2 % threshold
    const quiet = judge({ app: 'app', phase: 'startup', base: [1000, 1000], head: [1005, 1005] }, 0.002);
    assert.equal(quiet.regressed, true);
    assert.equal(quiet.threshold, 0.002);
    // a side that spreads 0.4 %: the threshold becomes 3 × 0.4 % and the same +0.5 % passes
    const noisy = judge({ app: 'app', phase: 'startup', base: [1000, 1004], head: [1007, 1007] }, 0.002);
    assert.ok(Math.abs(noisy.threshold - FLOOR_MULTIPLE * (4 / 1002)) < 1e-12);
    assert.equal(noisy.regressed, false);
    assert.equal(judge({ app: 'app', phase: 'total', base: [1000, 1000], head: [990, 990] }, 0.002).improved, true);
  });

  it("a phase's change must also be that share of the app's total: a small phase's noise is no regression", () => {
    // the first request is 50 of a 1,000 total: +0.6 % of it is 0.03 % of the total
    const small = judge({ app: 'app', phase: 'firstRequest', base: [50_000, 50_000], head: [50_300, 50_300] }, 0.002, 1_000_000);
    assert.equal(small.change > small.threshold, true, 'above its own threshold');
    assert.equal(small.regressed, false, 'but not felt in the total');
    // start-up, most of the total: +0.5 % of it is 0.4 % of the total, a regression
    const large = judge({ app: 'app', phase: 'startup', base: [800_000, 800_000], head: [804_000, 804_000] }, 0.002, 1_000_000);
    assert.equal(large.regressed, true);
    // without the total (a caller that gives none), the phase is held to its own count only
    assert.equal(judge({ app: 'app', phase: 'firstRequest', base: [50_000, 50_000], head: [50_300, 50_300] }, 0.002).regressed, true);
  });

  const report = (head: number, ref: string): GateReport => ({
    baseRef: ref,
    baseCommit: 'a'.repeat(40),
    headCommit: 'b'.repeat(40),
    rounds: 3,
    confirmed: head > 1002,
    thresholdOption: 0.002,
    cells: [
      judge({ app: 'app', phase: 'startup', base: [1e6, 1e6], head: [head * 1e3, head * 1e3] }, 0.002),
      judge({ app: 'app', phase: 'boot', base: [2e6, 2e6], head: [2e6, 2e6] }, 0.002),
    ],
  });

  it('writes the verdict first, the moved cells next, the rest folded, outside text escaped', () => {
    const markdown = gateMarkdown(report(1010, 'feat/`x`|<b>\u001b]0;t\u0007'));
    const lines = markdown.split('\n');
    assert.match(lines[0]!, /^## Cold-start gate: \*\*FAIL\*\*: 1 regression\(s\) in instructions: app startup \+1\.00 %$/);
    assert.ok(markdown.indexOf('### Cells that moved') < markdown.indexOf('<details>'));
    assert.match(markdown, /\| app \| startup \| 1\.000 \| 1\.010 \| \+1\.00 % \| \+0\.0 \|.*\| regression \|/);
    // the ≈ ms column: 10,000 more instructions × 0.151 ms per million, and the note that says what it is
    assert.match(markdown, /✱ ≈ ms: the change in instructions × 0\.151 ms per million, .*median error 7\.1 %/);
    assert.equal(modelledMs(20e6), '+3.0');
    assert.equal(modelledMs(-2e6), '−0.3');
    assert.match(markdown, /<details><summary>The other cells \(1\)<\/summary>[^]*\| app \| boot \|/);
    assert.match(markdown, /counted again once on both sides/);
    assert.match(markdown, /Base feat\/\\`x\\`&#124;&lt;b&gt;/);
    assert.ok(!/[\p{Cc}]/u.test(markdown.replaceAll('\n', '')), 'no control character');
    const pass = gateMarkdown(report(1001, 'main'));
    assert.match(pass.split('\n')[0]!, /\*\*PASS\*\*/);
    assert.doesNotMatch(pass, /Cells that moved|counted again/);
  });

  it('under --cache-sim, shows estimated cycles beside the counts and takes the ≈ ms from them, by the cycles fit', () => {
    const cycles = { base: [1.2e6, 1.2e6], head: [1.225e6, 1.225e6] };
    const counted: GateReport = {
      ...report(1010, 'main'),
      cells: [judge({ app: 'app', phase: 'startup', base: [1e6, 1e6], head: [1.01e6, 1.01e6], cycles }, 0.002)],
    };
    const markdown = gateMarkdown(counted);
    assert.match(markdown, /\| base \(M cycles\) \| head \(M cycles\) \| cycles change \| ≈ ms ✱ \|/);
    // 25,000 more cycles × 0.120 ms per million: +0.003 ms, shown to one decimal; the cycles' change +2.08 %
    assert.match(markdown, /\| app \| startup \| 1\.000 \| 1\.010 \| \+1\.00 % \| 1\.200 \| 1\.225 \| \+2\.08 % \| \+0\.0 \|/);
    assert.equal(modelledMs(25e6, CYCLES_AS_TIME), '+3.0');
    assert.match(markdown, /✱ ≈ ms: the change in estimated cycles × 0\.12 ms per million, .*median error 2\.3 %/);
    assert.match(markdown, /with its cache simulation: estimated cycles = instructions \+ 10 × L1 misses \+ 100 × last-level misses/);
    // without cycles, neither the columns nor the cycles' note
    assert.doesNotMatch(gateMarkdown(report(1010, 'main')), /M cycles|estimated cycles/);
  });

  it("names the framework's package and each side's version; the paths' lengths only when the versions' differ", () => {
    const framework = (base: string, head: string) =>
      gateMarkdown({ ...report(1001, 'main'), framework: { package: 'fastify', from: '.', base, head } });
    assert.match(framework('fastify@5.12.8', 'fastify@5.12.8'), /packed from `\.` of each commit, at `fastify@5\.12\.8` on both sides\./);
    const patch = framework('fastify@5.12.0', 'fastify@5.12.1');
    assert.match(patch, /at `fastify@5\.12\.0` \(base\) and `fastify@5\.12\.1` \(head\)\./);
    assert.doesNotMatch(patch, /lengths differ/);
    assert.match(framework('fastify@5.9.9', 'fastify@5.10.0'), /\(head\): the versions' lengths differ/);
  });

  it("names the phase of the largest floor when a small phase's is above the total's, and the total's floor", () => {
    const noisy: GateReport = {
      ...report(1001, 'main'),
      cells: [
        judge({ app: 'fastify 1000', phase: 'firstRequest', base: [49e6, 35e6], head: [49e6, 35e6] }, 0.002, 6e9),
        judge({ app: 'fastify 1000', phase: 'total', base: [6.05e9, 6.08e9], head: [6.05e9, 6.056e9] }, 0.002),
      ],
    };
    assert.match(
      gateMarkdown(noisy),
      /Noise floor \(largest A\/A spread of a side\): 33\.333 %, in fastify 1000 firstRequest \(of the total: 0\.495 %\);/,
    );
    assert.match(gateMarkdown(report(1001, 'main')), /Noise floor \(largest A\/A spread of a side\): 0\.000 %;/);
  });

  it('gives the key figures for $GITHUB_OUTPUT', () => {
    assert.equal(
      gateOutputs(report(1010, 'main')),
      'verdict=fail\nregressions=1\nnoise-floor=0.000000\nworst-change=0.010000\nconfirmed=true\n',
    );
  });
});
