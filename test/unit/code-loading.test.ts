/**
 * The Init estimate's code-loading term (issue 27): the fit recomputed from the shipped public data
 * equals the shipped coefficient and leave-one-out errors, every held-out function stays within its
 * bound, the least squares recover a known coefficient (with groups whose offset is unknown), and
 * bad or missing data is refused with one line naming what is wrong.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  codeLoadingTerm,
  fitCodeLoading,
  pairedRatio,
  leaveOneOut,
  looErrorRanges,
  predictRow,
  roundCoefficient,
  shippedCodeLoading,
} from '../../metrics/analyse/code-loading.ts';
import {
  CodeLoadingDataError,
  parseCodeLoadingData,
  readCodeLoadingData,
  SHIPPED_CODE_LOADING_FILE,
  type CodeLoadingRow,
} from '../../metrics/calibration/lambda-code-loading.ts';
import { readTextBounded } from '../../metrics/store/input-files.ts';
import { looTableRows } from '../../metrics/pipeline/code-loading-fold.ts';
import { codeLoadingTermText, withheldTermReason } from '../../metrics/report/code-loading.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'coldstart-code-loading-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const shipped = () => JSON.parse(readTextBounded(SHIPPED_CODE_LOADING_FILE, 2 ** 20, 'the data')) as Record<string, unknown>;

describe('the shipped fit', () => {
  const data = shippedCodeLoading();

  it('is recomputed from the shipped data: the same coefficient and the same leave-one-out errors', () => {
    assert.equal(roundCoefficient(fitCodeLoading(data.rows).coefficient), data.fit.coefficient);
    assert.deepEqual(looErrorRanges(leaveOneOut(data.rows)), data.fit.looErrorPct);
  });

  it('holds every public function within its bound when it is left out, but those the data says are not, and why', () => {
    const functions = new Set(data.rows.map((r) => r.function));
    assert.deepEqual(new Set(Object.keys(data.fit.looErrorPct)), functions, 'every function is validated');
    const beyond = Object.entries(data.fit.looErrorPct).filter(([, [low, high]]) => low < -data.fit.boundPct || high > data.fit.boundPct);
    // a function beyond the bound stays in the fit and is named with its reason; the list holds exactly those
    assert.deepEqual(beyond.map(([id]) => id).sort(), Object.keys(data.fit.beyondBound).sort());
    for (const [id, [low, high]] of Object.entries(data.fit.looErrorPct)) {
      const bound = data.fit.beyondBound[id] === undefined ? data.fit.boundPct : 2 * data.fit.boundPct;
      assert.ok(low >= -bound && high <= bound, `${id}: ${low} to ${high} % against ±${bound} %`);
    }
  });

  it("docs/guide/lambda.md's and the finding's leave-one-out table is the one the shipped data gives", () => {
    const docs = ['guide/lambda.md', 'findings/2026-11-26-code-loading-term.md'].map((f) =>
      readFileSync(path.join(import.meta.dirname, '..', '..', 'docs', f), 'utf8'),
    );
    const lines = looTableRows(data);
    assert.equal(lines.length, data.rows.length);
    for (const line of lines) for (const doc of docs) assert.ok(doc.includes(line), `the docs lack the row:\n${line}`);
  });

  it('every row names a known source, reference and local measurement with its command', () => {
    for (const row of data.rows) {
      const fn = data.functions.find((f) => f.id === row.function)!;
      assert.ok(data.sources.some((s) => s.id === fn.source));
      assert.ok(data.measurements.find((m) => m.id === row.local.measurement)!.command.includes('npm run measure'));
    }
    assert.ok(
      data.excluded.every((e) => e.why.length > 0),
      'every exclusion says why',
    );
  });
});

/** A row whose real figure is exactly hello world + (1 + k) × the local excess. */
function row(fn: string, excess: number, k: number, extra: Partial<CodeLoadingRow> = {}): CodeLoadingRow {
  return {
    function: fn,
    runtime: 'nodejs22.x',
    architecture: 'x86_64',
    memoryMB: 512,
    real: { statistic: 'mean', initMs: 140 + (1 + k) * excess, n: 10 },
    reference: { id: 'r', initMs: 140 },
    local: { measurement: 'm', initMs: 130 + excess, p25: 0, p75: 0, n: 10, referenceInitMs: 130 },
    ...extra,
  };
}

function grouped(fn: string, local: number, k: number, offset: number): CodeLoadingRow {
  return {
    function: fn,
    runtime: 'unstated',
    architecture: 'x86_64',
    memoryMB: 512,
    real: { statistic: 'median', initMs: offset + (1 + k) * local, n: 20 },
    offsetGroup: 'g',
    local: { measurement: 'm', initMs: local, p25: 0, p75: 0, n: 10 },
  };
}

describe('the least squares', () => {
  it('recover a known coefficient and a group offset, and predict a held-out function exactly', () => {
    const rows = [row('a', 10, 1.5), row('b', 90, 1.5), grouped('c', 100, 1.5, 60), grouped('d', 200, 1.5, 60), grouped('e', 260, 1.5, 60)];
    const fit = fitCodeLoading(rows);
    assert.ok(Math.abs(fit.coefficient - 1.5) < 1e-9);
    assert.ok(Math.abs(fit.offsets.get('g')! - 60) < 1e-9);
    for (const l of leaveOneOut(rows)) assert.ok(Math.abs(l.nowErrorPct) < 1e-9, `${l.row.function}: ${l.nowErrorPct}`);
    // without the term, the same rows are low, the more so the more code
    const before = leaveOneOut(rows).filter((l) => l.row.function === 'b')[0]!;
    assert.ok(Math.abs(before.beforeErrorPct - (100 * (230 - 365)) / 365) < 1e-9, String(before.beforeErrorPct));
  });

  it('with the split (local.loading), fit k on the loading part only, the running part at its Lambda CPU time taken out', () => {
    // each row's Init here when first measured: the reference (130) + a loading excess + a running excess. The split
    // was measured on a day when the hello world cost 25 ms more, a fixed cost the apps paid too (their excess the
    // same in ms, so their loading ratio lower: the 2026-11-27 re-measurement). The real Init: hello world +
    // loading × (1 + k) + running on Lambda (running here × a CPU factor of 0.9), k = 1.5
    const split = (fn: string, loading: number, running: number) => {
      const real = 140 + 2.5 * loading + 0.9 * running;
      const loadingPart = {
        measurement: 'm',
        initMs: 155 + loading,
        referenceInitMs: 155,
        ratio: 1 + loading / 155,
        runningMs: running,
        runningOnLambdaMs: 0.9 * running,
        loadingMs: loading,
        n: 10,
      };
      const base = row(fn, loading + running, 0);
      return { ...base, real: { ...base.real, initMs: real }, local: { ...base.local, loading: loadingPart } };
    };
    const rows = [split('a', 10, 300), split('b', 90, 0), split('c', 40, 1000)];
    const fit = fitCodeLoading(rows);
    assert.ok(Math.abs(fit.coefficient - 1.5) < 1e-9, String(fit.coefficient));
    for (const l of leaveOneOut(rows)) assert.ok(Math.abs(l.nowErrorPct) < 1e-9, `${l.row.function}: ${l.nowErrorPct}`);
    // the same rows read as a whole excess (the old shape: no loading part) give another k, and miss
    const whole = rows.map(({ local: { loading: _loading, ...local }, ...rest }) => ({ ...rest, local }));
    assert.ok(Math.abs(fitCodeLoading(whole).coefficient - 1.5) > 0.5, String(fitCodeLoading(whole).coefficient));
    // H stays the hello world of the rows' first measurement (130), whatever the day the split was measured on
    assert.equal(fit.helloWorld('nodejs22.x'), 130);
    // read through the split day's own loading ratio instead, the fixed 25 ms would have raised k (the rejected fit)
    const byRatio = rows.map((r) => ({
      ...r,
      local: { ...r.local, initMs: 130 * r.local.loading.ratio + r.local.loading.runningMs },
    }));
    assert.ok(fitCodeLoading(byRatio).coefficient > 1.8, String(fitCodeLoading(byRatio).coefficient));
  });

  it('a group left with no other function cannot predict it, and says so', () => {
    assert.throws(() => leaveOneOut([row('a', 10, 1), row('b', 90, 1), grouped('c', 100, 1, 0)]), /no other function of its group g/);
    assert.equal(predictRow(grouped('c', 100, 1, 0), { coefficient: 1, offsets: new Map(), helloWorld: () => 130 }), undefined);
  });
});

describe('the term', () => {
  const model = { coefficient: 1.2, helloWorldMs: (line: string) => (line === 'nodejs24.x' ? 125 : 130), fittedUpToMs: 100 };
  const term = (initMs: number, referenceInitMs: number, runtime = 'nodejs22.x') =>
    codeLoadingTerm({ initMs, referenceInitMs, ratio: initMs / referenceInitMs, runtime }, model);

  it('scales only what the cell exceeds the reference by; a cell below it gets none beyond its own excess', () => {
    const t = term(230, 130);
    assert.equal(t.excessMs, 100);
    assert.ok(Math.abs(t.atFitSpeedMs - 100) < 1e-9 && Math.abs(t.ms - 120) < 1e-9, JSON.stringify(t));
    const below = term(117, 130);
    assert.ok(Math.abs(below.atFitSpeedMs + 13) < 1e-9 && Math.abs(below.ms) < 1e-9, 'no term: the excess as measured');
  });

  it('gives the same estimate on a machine twice as slow: the excess is a ratio to the hello world measured beside it', () => {
    // measured + (real hello world − local reference) + term, for a real hello world of 140
    const estimate = (init: number, ref: number) => init + (140 - ref) + term(init, ref).ms;
    assert.ok(Math.abs(estimate(230, 130) - estimate(460, 260)) < 1e-9);
    assert.ok(Math.abs(estimate(230, 130) - (140 + 2.2 * 100)) < 1e-9);
    // the plain difference would have doubled it: 140 + 2.2 × 200
    assert.ok(estimate(460, 260) < 140 + 2.2 * 200 - 100);
  });

  it("converts the ratio with the hello world of the cell's runtime line when the fit measured it", () => {
    assert.ok(Math.abs(term(250, 125, 'nodejs24.x').atFitSpeedMs - 125) < 1e-9);
    assert.ok(Math.abs(term(250, 125, 'nodejs22.x').atFitSpeedMs - 130) < 1e-9);
  });

  it("says when the excess is beyond the fitted ones, and the reference's own cell gets +0", () => {
    assert.match(
      codeLoadingTermText(term(330, 130)),
      /^\+240 \(\+200 here → \+200 at the fit's speed, × 2\.2 on Lambda; beyond evidence: 2\.00× the largest fitted \(100\)\)$/,
    );
    assert.doesNotMatch(codeLoadingTermText(term(200, 130)), /beyond/);
    assert.equal(codeLoadingTermText(term(130, 130)), '+0');
    assert.match(
      codeLoadingTermText(term(120, 130)),
      /^\+0\.0 \(Init at or below the reference's: −10\.0 here → −10\.0 at the fit's speed\)$/,
    );
  });

  it('a negative term is never printed: withheld, saying why (load: more excess here than Lambda would pay)', () => {
    // a slow (loaded) machine: 100 ms of excess here, 43.3 at the fit's speed, 95.3 on Lambda: the term is −4.7
    const slow = term(400, 300);
    assert.ok(slow.ms < 0);
    const text = codeLoadingTermText(slow);
    assert.match(text, /^withheld: negative \(\+100 here → \+43\.3 at the fit's speed\): .*\(load: it ran slower than the fit's\)$/);
    assert.doesNotMatch(text, /^withheld: −|^−/);
    assert.equal(withheldTermReason(term(330, 130)), undefined, 'a positive term is printed');
  });

  it('pairs each sample with the reference of the same round, so drift between rounds cancels', () => {
    // round 2 ran while the machine was four times slower: the median of the ratios sees 1.1, the ratio of the medians 1.2
    const cell = { values: [110, 440, 120], median: 120, index: [1, 2, 3] };
    const reference = { values: [100, 400, 100], median: 100, index: [1, 2, 3] };
    assert.ok(Math.abs(pairedRatio(cell, reference) - 1.1) < 1e-9);
    assert.equal(pairedRatio({ ...cell, index: undefined }, reference), 1.2, 'no rounds: the ratio of the medians');
    assert.equal(pairedRatio(cell, { ...reference, index: [4, 5, 6] }), 1.2, 'no shared round: the ratio of the medians');
  });
});

describe('bad or missing data', () => {
  const refused = (change: (d: Record<string, unknown>) => void, why: RegExp) => {
    const d = shipped();
    change(d);
    assert.throws(
      () => parseCodeLoadingData(d, 'data.json'),
      (e: unknown) => {
        assert.ok(e instanceof CodeLoadingDataError);
        assert.match(e.message, /^data\.json is not the code-loading data: /);
        assert.match(e.message, why);
        assert.doesNotMatch(e.message, /\n/);
        return true;
      },
    );
  };
  type Loose = Record<string, unknown> & { real: Record<string, unknown>; local: Record<string, unknown> };
  const firstRow = (d: Record<string, unknown>) => (d.rows as Loose[])[0]!;

  it('refuses a file without rows, a row of an unknown function, and a figure that is not one', () => {
    refused((d) => delete d.rows, /no rows/);
    refused((d) => (firstRow(d).function = 'nobody'), /row 1: unknown function nobody/);
    refused((d) => (firstRow(d).real.initMs = -3), /row 1 real initMs is not a figure in ms/);
    refused((d) => (firstRow(d).local.initMs = 'fast'), /row 1 local initMs is not a figure in ms/);
    refused((d) => (firstRow(d).real.statistic = 'max'), /row 1: real statistic/);
  });

  it('reads a loading part on a row with a reference, and refuses one on an offset group or without its figures', () => {
    const loading = {
      measurement: '2026-11-23-handlers',
      initMs: 200,
      referenceInitMs: 120,
      ratio: 1.6,
      runningMs: 3.2,
      runningOnLambdaMs: 3,
      loadingMs: 70,
      n: 10,
    };
    const d = shipped();
    firstRow(d).local.loading = loading;
    assert.deepEqual(parseCodeLoadingData(d, 'data.json').rows[0]!.local.loading, loading);
    refused((x) => ((x.rows as Loose[]).find((r) => r.offsetGroup)!.local.loading = loading), /a loading part needs a reference/);
    refused((x) => (firstRow(x).local.loading = { ...loading, ratio: undefined }), /local loading: ratio/);
    refused((x) => (firstRow(x).local.loading = { ...loading, runningMs: 'none' }), /local loading: runningMs/);
    refused((x) => (firstRow(x).local.loading = { ...loading, measurement: 'nowhere' }), /local loading: unknown measurement/);
  });

  it('refuses a row with both a real hello world and an offset group, and a fit without a coefficient', () => {
    refused((d) => (firstRow(d).offsetGroup = 'g'), /row 1: give a reference with the local reference's Init, or an offsetGroup/);
    refused((d) => ((d.fit as Record<string, unknown>).coefficient = null), /fit: coefficient/);
    refused((d) => ((d.sources as Record<string, unknown>[])[0]!.date = '2025-13-01'), /date is not a day/);
  });

  it('a missing file or one that is not JSON is one line naming it', () => {
    assert.throws(
      () => readCodeLoadingData(path.join(dir, 'absent.json')),
      (e: unknown) => e instanceof CodeLoadingDataError && /absent\.json/.test(e.message),
    );
    const broken = path.join(dir, 'broken.json');
    writeFileSync(broken, '{"rows": [');
    assert.throws(() => readCodeLoadingData(broken), /broken\.json is not JSON/);
  });
});
