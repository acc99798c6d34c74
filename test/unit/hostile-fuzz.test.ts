/**
 * Hostile strings, generated (issue 37, class 6): fast-check builds text from the pieces that break
 * outputs (control characters, ESC/OSC/CSI sequences, bidi overrides, CR/LF, `</script>`, `]]>`,
 * quotes, commas, pipes, NUL, lone surrogates, markdown and HTML syntax) mixed with arbitrary text, and
 * drives it, in-process, through every output of a run folder and through the terminal stream:
 * a failed sample's reason and stderr, the command line, the machine's CPU name and a skipped
 * framework's name and reason in meta.json reach summary.md, scaling.md, summary.csv, report.html and
 * the SVG charts (each checked for its own format by test/support/inert.ts: markdown inert with its
 * table rows unbroken, SVG well-formed, CSV rectangular, HTML with no injected tag, no control or bidi
 * character anywhere), and the progress lines a run prints hold no control or bidi character.
 * numRuns is small: each report renders its charts.
 */
import assert from 'node:assert/strict';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { contractOf } from '../../generators/contract.ts';
import { makeCell } from '../../metrics/core/cell.ts';
import type { SampleRecord } from '../../metrics/core/samples.ts';
import { Progress } from '../../metrics/measure/progress.ts';
import { blockedRecord } from '../../metrics/measure/sample.ts';
import { buildPlan } from '../../metrics/plan/order.ts';
import { writeReport } from '../../metrics/report/write.ts';
import { fixture, tempDir } from '../support/in-process.ts';
import { assertEveryOutputInert } from '../support/inert.ts';

const PIECES = [
  '\u001b[2J',
  '\u001b]0;owned\u0007',
  '\u001b[31m',
  '\u009b1m',
  '\u202e',
  '\u2066',
  '\u200f',
  '\r\n',
  '\r',
  '\n# heading\n',
  '\u0000',
  '\ud800',
  '\udfff',
  '</script>',
  '<script>alert(1)</script>',
  '<img src=x onerror=alert(1)>',
  ']]>',
  '<![CDATA[',
  '"',
  "'",
  ',',
  '|',
  '`',
  '``',
  '\\',
  '[x](javascript:alert(1))',
  '=HYPERLINK("x")',
  '&amp;',
  '\t',
];

/** Text from the hostile pieces and arbitrary code points (lone surrogates included). */
const hostile = fc
  .array(fc.oneof(fc.constantFrom(...PIECES), fc.string({ unit: 'binary', maxLength: 6 })), { minLength: 1, maxLength: 8 })
  .map((parts) => parts.join(''));

// eslint-disable-next-line no-control-regex
const TERMINAL_UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

describe('hostile strings through every output (fast-check)', () => {
  it('report outputs keep their format rules for generated hostile text', async () => {
    const golden = fixture('golden-run');
    await fc.assert(
      fc.asyncProperty(hostile, hostile, hostile, async (reason, stderr, name) => {
        const dir = tempDir('coldstart-fuzz-');
        copyFileSync(path.join(golden, 'samples.jsonl'), path.join(dir, 'samples.jsonl'));
        const failed = {
          cell: { framework: 'hono', variant: 'validated', routes: 1, runtime: 'node', build: 'plain', compileCache: 'off' },
          phase: 'sample',
          index: 6,
          ok: false,
          error: reason,
          stderrTail: stderr,
          durationMs: 10,
          at: '2026-11-22T17:42:05.957Z',
        };
        writeFileSync(
          path.join(dir, 'samples.jsonl'),
          `${readFileSync(path.join(dir, 'samples.jsonl'), 'utf8')}${JSON.stringify(failed)}\n`,
        );
        const meta = JSON.parse(readFileSync(path.join(golden, 'meta.json'), 'utf8')) as Record<string, unknown>;
        meta.command = `npm run metrics -- --name ${name}`;
        meta.machine = { os: 'linux', cpu: name, cores: 2, memoryGB: 1 };
        meta.skipped = { [name]: reason };
        writeFileSync(path.join(dir, 'meta.json'), JSON.stringify(meta));
        await writeReport(dir);
        assertEveryOutputInert(dir);
        // a markdown table's rows keep their header's columns (a `|` or a newline in a cell would break them)
        for (const file of ['summary.md', 'scaling.md']) {
          const lines = readFileSync(path.join(dir, file), 'utf8').split('\n');
          let columns: number | undefined;
          for (const line of lines) {
            if (!line.startsWith('|')) {
              columns = undefined;
              continue;
            }
            const cells = line.replace(/\\\|/g, '').split('|').length;
            columns ??= cells;
            assert.equal(cells, columns, `${file}: a table row with another number of cells: ${JSON.stringify(line)}`);
          }
        }
      }),
      { numRuns: 4, seed: 37 },
    );
  });

  it('the terminal stream (progress lines of failed samples) holds no control or bidi character', () => {
    const cell = makeCell({ framework: 'node-http', variant: 'validated', routes: 1 });
    const planned = {
      cell,
      launch: { command: process.execPath, file: 'x.js', compileCache: 'off' as const },
      blocked: undefined,
      contract: contractOf({}),
      validates: true,
    };
    const plan = buildPlan([planned], { samples: 3, warmup: 0, order: 'interleaved', seed: 's', countSamples: 1 });
    fc.assert(
      fc.property(hostile, hostile, (reason, stderr) => {
        const chunks: string[] = [];
        const stream = { isTTY: false, write: (chunk: string) => chunks.push(chunk) > 0 } as unknown as NodeJS.WriteStream;
        const progress = new Progress(plan, stream, false, 60_000);
        for (const run of plan) {
          progress.starting(run);
          const record: SampleRecord = { ...blockedRecord(run, { kind: 'failed', reason }), stderrTail: stderr };
          progress.finished(record);
        }
        progress.line(`note: ${reason}`);
        progress.stop();
        const text = chunks.join('');
        assert.ok(text.length > 0);
        // lines end with \n; nothing else a terminal acts on
        assert.doesNotMatch(text.replace(/\n/g, ''), TERMINAL_UNSAFE, JSON.stringify(text));
      }),
      { numRuns: 100, seed: 37 },
    );
  });
});
