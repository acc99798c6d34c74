import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import seedrandom from 'seedrandom';
import {
  assessCell,
  decideRound,
  formatPrecision,
  parsePrecision,
  precisionSettings,
  type CellProgress,
  type PrecisionSettings,
} from '../../metrics/analyse/precision.ts';
import { UsageError } from '../../metrics/core/errors.ts';

const SETTINGS: PrecisionSettings = { precision: 0.03, minSamples: 5, maxSamples: 30 };

/** A synthetic cell: each sample succeeds with `value()` or fails with probability `failRate`. */
interface Source {
  key: string;
  value: () => number;
  failRate?: number;
}

/**
 * What the measurement session does with --samples auto: a first round of the minimum for every
 * cell, then interleaved rounds of one sample for each cell that still needs one.
 */
function simulate(sources: Source[], settings: PrecisionSettings, seed = 'simulate') {
  const random = seedrandom(seed);
  const progress = new Map<string, { values: number[]; failures: number }>(sources.map((s) => [s.key, { values: [], failures: 0 }]));
  const take = (source: Source) => {
    const p = progress.get(source.key)!;
    if (random() < (source.failRate ?? 0)) p.failures++;
    else p.values.push(source.value());
  };
  const state = (): CellProgress[] => sources.map((s) => ({ key: s.key, ...progress.get(s.key)! }));
  let decision = decideRound(state(), settings);
  let rounds = 0;
  while (decision.more.length) {
    for (const key of decision.more) take(sources.find((s) => s.key === key)!);
    rounds++;
    decision = decideRound(state(), settings);
    assert.ok(rounds <= settings.maxSamples, 'the loop ends by the maximum');
  }
  return { cells: decision.cells, rounds };
}

function noise(seed: string, center: number, relative: number): () => number {
  const random = seedrandom(seed);
  return () => center * (1 + relative * (random() * 2 - 1));
}

describe('precision: when a cell has enough samples', () => {
  it('quiet samples (±0.5 %) stop at the minimum: precision reached, half-width within ±3 %', () => {
    const { cells } = simulate([{ key: 'quiet', value: noise('q', 100, 0.005) }], SETTINGS);
    const quiet = cells[0]!;
    assert.equal(quiet.stopped, 'precision reached');
    assert.equal(quiet.samples, 5);
    assert.ok(quiet.relative! <= 0.03, `±${quiet.relative}`);
  });

  it('noisy samples (±40 %) go on to the maximum and say the precision they reached', () => {
    const { cells } = simulate([{ key: 'noisy', value: noise('n', 100, 0.4) }], SETTINGS);
    const noisy = cells[0]!;
    assert.equal(noisy.stopped, 'maximum reached');
    assert.equal(noisy.samples, 30);
    assert.ok(noisy.relative! > 0.03, `±${noisy.relative}`);
    assert.match(formatPrecision(noisy), /^n=30 ±\d+\.\d % \(maximum reached\)$/);
  });

  it('moderate noise (±8 %) stops between the minimum and the maximum, exactly when its CI first fits', () => {
    const values: number[] = [];
    const next = noise('m', 100, 0.08);
    let state = assessCell({ key: 'moderate', values, failures: 0 }, SETTINGS);
    while (!state.stopped) {
      values.push(next());
      state = assessCell({ key: 'moderate', values, failures: 0 }, SETTINGS);
    }
    assert.equal(state.stopped, 'precision reached');
    assert.ok(state.samples > 5 && state.samples < 30, `stopped at ${state.samples}`);
    assert.ok(state.relative! <= 0.03);
    const before = assessCell({ key: 'moderate', values: values.slice(0, -1), failures: 0 }, SETTINGS);
    assert.ok(before.samples < 5 || before.relative! > 0.03, 'one sample earlier it did not fit');
  });

  it('rounds are interleaved: a quiet cell stops early while a noisy one goes on', () => {
    const { cells, rounds } = simulate(
      [
        { key: 'quiet', value: noise('q2', 50, 0.005) },
        { key: 'noisy', value: noise('n2', 80, 0.4) },
      ],
      SETTINGS,
    );
    assert.deepEqual(
      cells.map((c) => [c.key, c.samples, c.stopped]),
      [
        ['quiet', 5, 'precision reached'],
        ['noisy', 30, 'maximum reached'],
      ],
    );
    assert.equal(rounds, 30);
  });

  it('a cell that mostly fails stops for that, not at the maximum', () => {
    const { cells } = simulate([{ key: 'crashy', value: noise('c', 100, 0.4), failRate: 0.8 }], SETTINGS, 'crash');
    assert.equal(cells[0]!.stopped, 'too many failures');
    assert.ok(cells[0]!.samples >= 5 && cells[0]!.samples < 30);
    const none = assessCell({ key: 'dead', values: [], failures: 5 }, SETTINGS);
    assert.equal(none.stopped, 'too many failures');
    assert.equal(none.relative, undefined);
    assert.equal(formatPrecision(none), 'n=5 ±? (too many failures)');
  });

  it('below the minimum nothing stops, however tight; the decision is the same for the same values', () => {
    const tight = assessCell({ key: 'k', values: [100, 100, 100, 100], failures: 0 }, SETTINGS);
    assert.equal(tight.stopped, undefined);
    assert.equal(tight.relative, 0);
    const again = () => assessCell({ key: 'k', values: [1, 2, 3, 4, 5, 6], failures: 0 }, SETTINGS);
    assert.deepEqual(again(), again());
  });
});

describe('precision: options', () => {
  it('parses 3%, 3 % and 3 as 0.03', () => {
    for (const text of ['3%', '3 %', '3', ' 2.5% ']) {
      assert.ok(Math.abs(parsePrecision(text) - Number.parseFloat(text) / 100) < 1e-12, text);
    }
  });
  for (const bad of ['', '0', '0%', '100%', '-3%', 'three', '3%%', '0.03.1']) {
    it(`rejects "${bad}" with one line`, () => {
      assert.throws(
        () => parsePrecision(bad),
        (error: Error) =>
          error instanceof UsageError && /--precision: .* is not a percentage/.test(error.message) && !error.message.includes('\n'),
      );
    });
  }
  it('checks the minimum and maximum together', () => {
    assert.deepEqual(precisionSettings(SETTINGS), SETTINGS);
    assert.throws(() => precisionSettings({ ...SETTINGS, minSamples: 1 }), /--min-samples: 1 is below 2/);
    assert.throws(() => precisionSettings({ ...SETTINGS, maxSamples: 4 }), /--max-samples: 4 is below --min-samples 5/);
  });
});
