/**
 * meta.json's schema (zod, through core/state-schema.ts): the type and range of every field a report
 * reads, checked before normalizeMeta (core/meta.ts) reads it. A field of the wrong type (a `durationMs`
 * of "fast", `cores` of "2", `interrupted` of "yes") was read as unknown, 0 or false without a word; it
 * is now one line naming the file and the field, exit 2. Every field is optional and every object keeps
 * the fields it does not name (older and newer runs add their own, which their readers check): every
 * meta.json this tool wrote, v1 included (test/unit/published-runs.test.ts, golden.test.ts), passes.
 */
import { z } from 'zod';

const text = z.string('a text expected');
const texts = z.array(text, 'a list of texts expected');
const textMap = z.record(z.string(), text, 'an object of texts expected');
/** ms, bytes, counts: finite and not negative */
const amount = z.number('a number expected').refine((n) => Number.isFinite(n) && n >= 0, 'a finite number from 0 up expected');
const flag = z.boolean('true or false expected');

const framework = z.looseObject(
  {
    version: text.optional(),
    packages: textMap.optional(),
    validation: text.optional(),
    alwaysValidates: flag.optional(),
    commits: textMap.optional(),
  },
  'an object expected',
);

export const metaSchema = z.looseObject(
  {
    version: z.number('a number expected').optional(),
    tool: text.optional(),
    toolVersion: text.optional(),
    startedAt: text.optional(),
    finishedAt: text.optional(),
    durationMs: amount.optional(),
    samplesDurationMs: amount.optional(),
    interrupted: flag.optional(),
    command: text.optional(),
    machine: z
      .looseObject(
        { os: text.optional(), cpu: text.optional(), cores: amount.optional(), memoryGB: amount.optional() },
        'an object expected',
      )
      .optional(),
    runner: z.looseObject({ node: text.optional() }, 'an object expected').optional(),
    runtimes: textMap.optional(),
    frameworks: z.record(z.string(), framework, 'an object of frameworks expected').optional(),
    skipped: textMap.optional(),
    environment: z.looseObject({ passed: texts.optional(), dropped: texts.optional() }, 'an object expected').optional(),
    versions: z
      .record(z.string(), z.looseObject({ resolved: text, integrity: text }, 'an object expected'), 'an object expected')
      .optional(),
    calibration: z
      .looseObject({ file: text, sha256: text, source: text.optional(), from: text.optional(), to: text.optional() }, 'an object expected')
      .optional(),
    timeEstimate: z
      .looseObject(
        {
          count: z.enum(['instructions', 'cycles'], 'instructions or cycles expected'),
          msPerMillion: amount,
          medianErrorPct: amount,
          worst: z.looseObject({ cell: text, errorPct: z.number('a number expected') }, 'an object expected'),
          cells: amount,
          largestCount: amount,
          dimensions: z.record(z.string(), texts, 'an object of lists of texts expected'),
          runtimeVersions: texts,
          machine: text,
          finding: text,
          date: text,
        },
        'an object expected',
      )
      .optional(),
  },
  'a JSON object expected',
);
