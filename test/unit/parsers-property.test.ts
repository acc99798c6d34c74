/**
 * Property tests of the parsers of outside text not covered elsewhere: the child's protocol lines
 * (a server's ready and after lines, a Lambda file's lines) and meta.json. Whatever a child prints or
 * a run folder holds, the parser gives a value within bounds samples.jsonl accepts back, or its own
 * failure with a reason; never another throw, and a report of any meta.json object never crashes.
 */
import assert from 'node:assert/strict';
import { copyFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { LAMBDA_PROTOCOL_VERSION, readLambdaLine } from '../../generators/lambda-probe.ts';
import { PROTOCOL_PREFIX, PROTOCOL_VERSION } from '../../generators/probe.ts';
import { UsageError } from '../../metrics/core/errors.ts';
import { MAX_RECORD_MS } from '../../metrics/core/samples.ts';
import { parseAfterLine, parseReadyLine } from '../../metrics/measure/targets/server.ts';
import { SampleFailure } from '../../metrics/measure/targets/target.ts';
import { writeReport } from '../../metrics/report/write.ts';
import { fixture, tempDir } from '../support/in-process.ts';

const figure = fc.oneof(
  fc.double(),
  fc.integer({ min: 0, max: 5000 }),
  fc.constantFrom(-1, -1e308, 1e308, 1e20, 0),
  fc.string(),
  fc.constant(null),
);

const readyLike = fc.record({
  v: fc.oneof(fc.constant(PROTOCOL_VERSION), fc.anything()),
  timeOrigin: fc.oneof(fc.constant(1_763_000_000_000), figure),
  marks: fc.oneof(fc.record({ start: figure, imported: figure, startup: figure, listen: figure }), fc.anything()),
  cpu: fc.oneof(fc.constant(undefined), fc.record({ start: figure, listen: figure })),
  port: fc.oneof(fc.integer({ min: 1, max: 65535 }), figure),
  rss: figure,
  heapUsed: figure,
  runtime: fc.oneof(fc.constant('node v20.20.2'), fc.anything()),
});

function inBounds(value: unknown): boolean {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 && value <= MAX_RECORD_MS;
}

describe("the child's protocol lines, for anything a child prints", () => {
  it('a server ready line: marks and CPU times within what samples.jsonl accepts, or a SampleFailure', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          readyLike.map((v) => JSON.stringify(v)),
        ),
        (text) => {
          try {
            const ready = parseReadyLine(text);
            for (const mark of Object.values(ready.marks)) assert.ok(inBounds(mark), String(mark));
            for (const cpu of Object.values(ready.cpu)) assert.ok(inBounds(cpu), String(cpu));
            assert.ok(ready.rss >= 0 && Number.isFinite(ready.rss) && ready.heapUsed >= 0);
          } catch (error) {
            assert.ok(error instanceof SampleFailure, String(error));
          }
        },
      ),
    );
  });

  it('an after line: a CPU time within bounds, or nothing (the sample keeps everything else)', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc
            .record({ v: fc.constant(PROTOCOL_VERSION), after: fc.constant('firstResponse'), cpu: figure, rss: figure })
            .map((v) => JSON.stringify(v)),
        ),
        (text) => {
          const after = parseAfterLine(text);
          if (after) assert.ok(inBounds(after.cpu));
        },
      ),
    );
  });

  it('a Lambda file line: a ready or after line within bounds, undefined for other output, or an Error with the line', () => {
    const lambdaLike = fc.record({
      v: fc.constant(LAMBDA_PROTOCOL_VERSION),
      target: fc.constant('lambda'),
      timeOrigin: fc.constant(1_763_000_000_000),
      marks: fc.record({ start: figure, imported: figure, startup: figure }),
      cpu: fc.record({ start: figure, imported: figure, startup: figure }),
      rss: figure,
      heapUsed: figure,
      runtime: fc.constant('node v22'),
      pid: fc.constant(1),
    });
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.string().map((s) => PROTOCOL_PREFIX + s),
          lambdaLike.map((v) => PROTOCOL_PREFIX + JSON.stringify(v)),
        ),
        (line) => {
          let read;
          try {
            read = readLambdaLine(line);
          } catch (error) {
            assert.ok(error instanceof Error && error.message.length > 0);
            return;
          }
          if (read && 'marks' in read) for (const mark of Object.values(read.marks)) assert.ok(inBounds(mark), String(mark));
        },
      ),
    );
  });
});

describe('meta.json, for any JSON a run folder holds', () => {
  it('the report is written, or refused with a one-line UsageError; never an internal error', async () => {
    const golden = fixture('golden-run');
    const base = JSON.parse((await import('node:fs')).readFileSync(path.join(golden, 'meta.json'), 'utf8')) as Record<string, unknown>;
    const meta = fc.oneof(
      fc.jsonValue(),
      fc.dictionary(fc.constantFrom(...Object.keys(base)), fc.jsonValue()).map((patch) => ({ ...base, ...patch })),
    );
    const dir = tempDir('coldstart-meta-prop-');
    copyFileSync(path.join(golden, 'samples.jsonl'), path.join(dir, 'samples.jsonl'));
    await fc.assert(
      fc.asyncProperty(meta, async (value) => {
        writeFileSync(path.join(dir, 'meta.json'), JSON.stringify(value));
        try {
          await writeReport(dir);
        } catch (error) {
          assert.ok(error instanceof UsageError, `${String(error)} for ${JSON.stringify(value).slice(0, 300)}`);
          assert.doesNotMatch(error.message, /\n/);
        }
      }),
      { numRuns: 40 },
    );
  });
  it('a field of the wrong type or out of range: one line naming the file and the field (was read as unknown, 0 or false)', async () => {
    const golden = fixture('golden-run');
    const base = JSON.parse((await import('node:fs')).readFileSync(path.join(golden, 'meta.json'), 'utf8')) as Record<string, unknown>;
    const machine = base.machine as Record<string, unknown>;
    const dir = tempDir('coldstart-meta-schema-');
    copyFileSync(path.join(golden, 'samples.jsonl'), path.join(dir, 'samples.jsonl'));
    const file = path.join(dir, 'meta.json');
    const cases: [Record<string, unknown>, string][] = [
      [{ durationMs: 'fast' }, 'durationMs: a number expected, found "fast"'],
      [{ samplesDurationMs: -5 }, 'samplesDurationMs: a finite number from 0 up expected, found -5'],
      [{ interrupted: 'yes' }, 'interrupted: true or false expected, found "yes"'],
      [{ machine: { ...machine, cores: '2' } }, 'machine.cores: a number expected, found "2"'],
      [{ runtimes: { node: 20 } }, 'runtimes.node: a text expected, found 20'],
      [{ environment: { passed: ['PATH', 7], dropped: [] } }, 'environment.passed[1]: a text expected, found 7'],
      [{ startedAt: null }, 'startedAt: a text expected, found null'],
    ];
    for (const [patch, field] of cases) {
      writeFileSync(file, JSON.stringify({ ...base, ...patch }));
      await assert.rejects(writeReport(dir), (error: unknown) => {
        assert.ok(error instanceof UsageError, String(error));
        assert.equal(error.message, `${file}: ${field}: the file was edited or is not one this tool wrote (repair or remove it)`);
        return true;
      });
    }
  });
});
