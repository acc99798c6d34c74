/**
 * Bounds and sanity of what a user gives (issue 20, finding 7): every numeric option has a range the
 * code enforces (`--node` must be a JavaScript runtime by its own account: test/e2e/node-option), options that do nothing
 * without another are usage errors, and a samples.jsonl record whose figures are not finite,
 * non-negative numbers is refused with its line named. Option parsers are checked as properties: any
 * text gives a value in range or the one-line UsageError, never another throw.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import fc from 'fast-check';
import {
  MAX_TIMEOUT_S,
  parseChoiceList,
  parseInteger,
  parseMemory,
  parsePositive,
  parsePrice,
  parseRatio,
  parseRoutes,
  parseSeconds,
} from '../../metrics/core/parse.ts';
import { UsageError } from '../../metrics/core/errors.ts';
import { parseSampleRecord } from '../../metrics/core/samples.ts';
import { readSamples, SamplesFileError } from '../../metrics/store/samples-file.ts';
import { tempDir } from '../support/in-process.ts';
import { mainInProcess, type MainResult } from '../support/main-in-process.ts';

/** Either a value or the one-line UsageError: nothing else may escape a parser. */
function valueOrUsage<T>(parse: () => T): { value: T } | { usage: string } {
  try {
    return { value: parse() };
  } catch (error) {
    assert.ok(error instanceof UsageError, `not a UsageError: ${String(error)}`);
    assert.doesNotMatch(error.message, /\n/);
    return { usage: error.message };
  }
}

describe('option parsers, for any text', () => {
  const texts = fc.oneof(fc.string(), fc.stringMatching(/^-?\d{0,12}(\.\d{0,4})?(e-?\d{1,3})?%?$/), fc.constant('3000000'));

  it('--timeout: seconds above 0 and at most the limit a timer can hold', () => {
    fc.assert(
      fc.property(texts, (text) => {
        const got = valueOrUsage(() => parseSeconds('--timeout')(text));
        if ('value' in got) assert.ok(got.value > 0 && got.value <= MAX_TIMEOUT_S && got.value * 1000 < 2 ** 31 - 1);
      }),
    );
  });

  it('integers, memory sizes, prices, ratios and positive numbers stay in their documented ranges', () => {
    fc.assert(
      fc.property(texts, (text) => {
        const integer = valueOrUsage(() => parseInteger('--samples', 1, 10_000)(text));
        if ('value' in integer) assert.ok(Number.isInteger(integer.value) && integer.value >= 1 && integer.value <= 10_000);
        const memory = valueOrUsage(() => parseMemory('--memory')(text));
        if ('value' in memory) assert.ok(Number.isInteger(memory.value) && memory.value >= 128 && memory.value <= 10_240);
        const price = valueOrUsage(() => parsePrice(text));
        if ('value' in price) assert.ok(price.value > 0 && price.value < 1);
        const ratio = valueOrUsage(() => parseRatio(text));
        if ('value' in ratio) assert.ok(ratio.value >= 1 && Number.isFinite(ratio.value));
        const cpus = valueOrUsage(() => parsePositive('--init-cpus', 64, 'vCPUs')(text));
        if ('value' in cpus) assert.ok(cpus.value > 0 && cpus.value <= 64);
      }),
    );
  });

  it('--routes round-trips: a list of counts written out reads back sorted and deduplicated', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 100_000 }), { minLength: 1, maxLength: 20 }), (counts) => {
        assert.deepEqual(
          parseRoutes(counts.join(',')),
          [...new Set(counts)].sort((a, b) => a - b),
        );
      }),
    );
    fc.assert(
      fc.property(texts, (text) => {
        const got = valueOrUsage(() => parseRoutes(text));
        if ('value' in got) assert.ok(got.value.every((n) => Number.isInteger(n) && n >= 1 && n <= 100_000));
      }),
    );
  });

  it('choice lists give only the choices, each once', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.array(fc.constantFrom('plain', 'bundle', 'x', '')).map((a) => a.join(',')),
        ),
        (text) => {
          const got = valueOrUsage((): string[] => parseChoiceList('--build', ['plain', 'bundle'])(text));
          if ('value' in got) {
            assert.ok(got.value.length > 0 && got.value.every((v) => v === 'plain' || v === 'bundle'));
            assert.equal(new Set(got.value).size, got.value.length);
          }
        },
      ),
    );
  });
});

describe('samples.jsonl records', () => {
  const good = {
    cell: { framework: 'hono', variant: 'validated', routes: 1 },
    phase: 'sample',
    index: 1,
    ok: true,
    marks: { start: 10, listen: 20, firstResponse: 30 },
    durationMs: 40,
    at: '2026-11-23T10:00:00.000Z',
  };

  it('a record whose marks are not finite non-negative numbers is refused, its line and field named', () => {
    const dir = tempDir('coldstart-records-');
    for (const [field, value] of [
      ['listen', -1e308],
      ['listen', 'abc'],
      ['firstResponse', -1],
      ['start', 1e308],
      ['firstResponse', null],
    ] as const) {
      const file = path.join(dir, 'samples.jsonl');
      const bad = { ...good, marks: { ...good.marks, [field]: value } };
      writeFileSync(file, `${JSON.stringify(good)}\n${JSON.stringify(bad)}\n${JSON.stringify(good)}\n`);
      assert.throws(
        () => readSamples(file),
        (error: unknown) =>
          error instanceof SamplesFileError && error.message.includes(`samples.jsonl:2 `) && error.message.includes(`marks.${field}`),
        `${field} ${String(value)}`,
      );
    }
  });

  it('a cell name with markup or a line break is refused', () => {
    for (const framework of ['<script>', 'a b', 'x](javascript:y)', 'a\nb', '../x', '']) {
      assert.equal(parseSampleRecord({ ...good, cell: { ...good.cell, framework } }).ok, false, framework);
    }
  });

  it('for any JSON value: a record whose every figure is finite and non-negative, or a reason', () => {
    const figure = fc.oneof(fc.double(), fc.integer(), fc.string(), fc.constant(null), fc.constant(undefined));
    const record = fc.record({
      cell: fc.oneof(fc.constant(good.cell), fc.anything()),
      phase: fc.constantFrom('sample', 'warmup', 'other'),
      index: fc.oneof(fc.nat(), fc.double()),
      ok: fc.oneof(fc.boolean(), fc.anything()),
      marks: fc.oneof(fc.dictionary(fc.constantFrom('start', 'listen', 'firstResponse', 'init'), figure), fc.anything()),
      cpu: fc.anything(),
      durationMs: figure,
    });
    fc.assert(
      fc.property(fc.oneof(record, fc.anything()), (value) => {
        const parsed = parseSampleRecord(JSON.parse(JSON.stringify(value ?? null)) as unknown);
        if (!parsed.ok) {
          assert.ok(parsed.reason.length > 0 && !parsed.reason.includes('\n'));
          return;
        }
        const figures = [...Object.values(parsed.record.marks ?? {}), ...Object.values(parsed.record.cpu ?? {}), parsed.record.durationMs];
        for (const v of figures as unknown[])
          if (v !== undefined) assert.ok(typeof v === 'number' && Number.isFinite(v) && v >= 0, JSON.stringify(v));
        if (parsed.record.ok) assert.ok(Number.isFinite(parsed.record.marks?.firstResponse));
      }),
    );
  });
});

describe('the command line refuses absurd values and options that do nothing', () => {
  const base = ['run', '--frameworks', 'node-http', '--routes', '1', '--samples', '1', '--warmup', '0'];
  const cases: { args: string[]; message: RegExp }[] = [
    { args: ['--timeout', '3000000'], message: /--timeout: "3000000" is not a positive number of seconds up to 3600/ },
    { args: ['--precision', '5%'], message: /--precision does nothing without --samples auto/ },
    { args: ['--min-samples', '3', '--max-samples', '4'], message: /--min-samples, --max-samples do nothing without --samples auto/ },
    { args: ['--init-cpus', '1'], message: /--init-cpus does nothing without --lambda-memory/ },
    { args: ['--cpu-period', '20'], message: /--cpu-period does nothing without --lambda-memory/ },
    { args: ['--export-metric', 'listen'], message: /--export-metric does nothing without --export-json/ },
    { args: ['--seed', 'x'], message: /--seed does nothing without --order random/ },
  ];
  const results: MainResult[] = [];
  before(async () => {
    const out = tempDir('coldstart-bounds-');
    for (const [i, c] of cases.entries()) results.push(await mainInProcess([...base, ...c.args, '--out', path.join(out, `r${i}`)]));
  });
  cases.forEach((c, i) => {
    it(c.args.join(' '), () => {
      const r = results[i]!;
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, c.message);
      assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
    });
  });
});
