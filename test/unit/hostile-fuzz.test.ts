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
 * A second property runs the user's own apps with a lever that varies, one variant unsupported for a
 * hostile reason (node's stderr when a snapshot cannot be built), and an attribution.json whose package
 * folders, module files and failure reason are hostile: levers.md, chart-levers.svg,
 * chart-attribution.svg and the attribution section get them too. (App names themselves are checked
 * where they are made: a samples.jsonl cell of other characters is refused.)
 * numRuns is small: each report renders its charts.
 */
import assert from 'node:assert/strict';
import { copyFileSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
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
import { cell as syntheticCell, samplesOf, writeRun } from '../support/synthetic.ts';
import type { AttributionFile } from '../../metrics/core/attribution.ts';
import { writeAttribution } from '../../metrics/store/attribution-file.ts';

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

  it("a varying lever's unsupported reason and the attribution keep the rules for hostile text", async () => {
    await fc.assert(
      fc.asyncProperty(hostile, hostile, hostile, async (reason, packageName, moduleFile) => {
        const dir = tempDir('coldstart-fuzz-apps-');
        // app names are checked where they are made (letters, digits and ._+:@/-); what comes from outside
        // is the reason a lever does not apply (node's own stderr for a snapshot) and the profile's names
        const cells = ['app-a', 'app-b'].flatMap((app) =>
          (['plain', 'bundle'] as const).map((build) => syntheticCell(app, 1, { source: 'app', variant: 'plain', build })),
        );
        const unsupported = syntheticCell('app-c', 1, { source: 'app', variant: 'plain', build: 'bundle' });
        writeRun(
          dir,
          [
            ...cells.flatMap((c, i) => samplesOf(c, [100 + 10 * i, 102 + 10 * i, 104 + 10 * i, 106 + 10 * i, 108 + 10 * i])),
            ...samplesOf(syntheticCell('app-c', 1, { source: 'app', variant: 'plain', build: 'plain' }), [90, 91, 92, 93, 94]),
            blockedRecord({ cell: unsupported, phase: 'sample', index: 1 }, { kind: 'unsupported', reason }),
          ],
          {},
        );
        const attribution: AttributionFile = {
          version: 1,
          method: { profiler: 'v8 cpu profile', intervalUs: 100 },
          cells: [...cells, unsupported].map((c, i) => ({
            cell: c,
            ok: i !== 1,
            ...(i === 1 ? { reason: packageName } : {}),
            firstResponseMs: 100,
            ...(i === 1
              ? {}
              : {
                  attribution: {
                    profiledMs: 90,
                    busyMs: 80,
                    samples: 900,
                    packages: [
                      { name: packageName, selfMs: 40, inclusiveMs: 50 },
                      { name: `${packageName}/x`, selfMs: 20, inclusiveMs: 20 },
                    ],
                    modules: [{ file: moduleFile, owner: packageName, loadMs: 12 }],
                  },
                }),
          })),
        };
        // the tool's own writer: attribution.json is an output of a run, checked with the rest
        writeAttribution(dir, attribution);
        await writeReport(dir);
        const written = new Set(readdirSync(dir));
        for (const file of ['levers.md', 'chart-attribution.svg', 'summary.md', 'report.html'])
          assert.ok(written.has(file), `${file} was written (the property must reach it)`);
        assertEveryOutputInert(dir);
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
