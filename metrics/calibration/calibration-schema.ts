/**
 * A calibration table's schema (the shipped lambda-reference.json, lambda:reference's and
 * lambda:calibrate's output, any file given with --calibration): each row's runtime line, architecture
 * and memory size within Lambda's, and every figure a finite number from 0 up, checked before
 * parseReferenceTable reads a value (core/state-schema.ts names the first field that does not fit).
 * A memory size of 0 or 1e308, or a runtime holding escape bytes, was read as it was.
 */
import { z } from 'zod';
import { ARCHITECTURES, MAX_MEMORY_MB, MIN_MEMORY_MB } from '../core/lambda-platform.ts';

const figure = z.number('a number expected').refine((n) => Number.isFinite(n) && n >= 0, 'a finite number from 0 up expected');
const spread = z.looseObject(
  { median: figure, p25: figure, p75: figure, p95: figure.optional(), p99: figure.optional(), n: figure },
  'a spread (median, p25, p75, n) expected',
);
const text = z.string('a text expected');

export const referenceTableSchema = z.looseObject(
  {
    source: text,
    from: text,
    to: text,
    handler: text,
    notes: text,
    rows: z
      .array(
        z.looseObject(
          {
            runtime: z.string('a text expected').regex(/^nodejs\d{1,3}\.x$/, 'a Node.js runtime line (nodejs22.x) expected'),
            architecture: z.enum(ARCHITECTURES, `${ARCHITECTURES.join(' or ')} expected`),
            memoryMB: z
              .number('a number expected')
              .refine(
                (n) => Number.isInteger(n) && n >= MIN_MEMORY_MB && n <= MAX_MEMORY_MB,
                `a whole number of MB from ${MIN_MEMORY_MB} to ${MAX_MEMORY_MB} expected`,
              ),
            initMs: spread,
            durationMs: spread,
            maxMemoryUsedMB: figure.optional(),
          },
          'a row expected',
        ),
        'a list of rows expected',
      )
      .max(100_000, 'at most 100000 rows expected'),
  },
  'a JSON object expected',
);
