/**
 * Text from outside lands escaped for its format (issue 20, finding 5): a child's stderr in the
 * failure list, the Status and Error Type of imported REPORT lines, the command line, file names and
 * meta.json's fields never bring HTML, links, headings or a broken code span into summary.md. The
 * helpers are checked as properties over arbitrary text, then end to end on a hostile run folder.
 */
import assert from 'node:assert/strict';
import { copyFileSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { jsonFileText, markdownCode, markdownText, oneLine, xmlText } from '../../metrics/core/escape.ts';
import { importLambda } from '../../metrics/pipeline/lambda-import.ts';
import { writeReport } from '../../metrics/report/write.ts';
import { fixture, tempDir } from '../support/in-process.ts';
import { assertEveryOutputInert, assertInert } from '../support/inert.ts';

const HOSTILE = [
  '<script>alert(1)</script>',
  '<img src=x onerror=alert(1)>',
  '[click](javascript:alert(1))',
  'a`b``c',
  'line\n# injected heading\n<b>bold</b>',
  '| x | y |',
  '**bold** _em_ ~~strike~~',
  '\\`escape',
  '=HYPERLINK("http://x.invalid","y")',
  '@SUM(A1:A2)',
  '\u202Egnp.exe',
  '\u001b[31mred\u001b[0m',
];

describe('markdownText', () => {
  it('leaves ordinary text as it is (reports of benign runs keep their bytes)', () => {
    for (const text of ['fastify 5.12.8', 'NODE_ENV=production', 'linux x64 6.18.44-fc-v769', 'exit code 1 (signal SIGKILL): Error: boom.'])
      assert.equal(markdownText(text), text);
  });

  it('for any text: one line, no HTML tag, no unescaped markdown syntax', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.constantFrom(...HOSTILE)), (text) => {
        const out = markdownText(text);
        assert.doesNotMatch(out, /[\n\r<>]/);
        // every backtick, star, bracket and tilde is preceded by an odd number of backslashes
        for (const match of out.matchAll(/(\\*)([`*[\]~])/g)) assert.equal(match[1]!.length % 2, 1, out);
        assert.doesNotMatch(out, /\|/);
      }),
    );
  });
});

describe('markdownCode', () => {
  it('is a plain code span for text without backticks', () => {
    assert.equal(markdownCode('npm run metrics -- --out results/x'), '`npm run metrics -- --out results/x`');
  });

  it('for any text: one code span that holds the text (newlines as spaces) and cannot be closed early', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ minLength: 1 }), fc.constantFrom(...HOSTILE), fc.stringMatching(/^[`a\n ]+$/)), (text) => {
        const out = markdownCode(text);
        const fence = /^`+/.exec(out)![0];
        assert.ok(out.endsWith(fence) && out.length >= 2 * fence.length);
        const inner = out.slice(fence.length, out.length - fence.length);
        assert.doesNotMatch(out, /\n/);
        // no run of backticks inside is as long as the fence
        for (const run of inner.match(/`+/g) ?? []) assert.ok(run.length < fence.length, out);
        // CommonMark strips one space on each side when both are there and the span is not all spaces
        const stripped = inner.length >= 2 && inner.startsWith(' ') && inner.endsWith(' ') && inner.trim() !== '';
        assert.equal(stripped ? inner.slice(1, -1) : inner, oneLine(text));
      }),
    );
  });
});

describe('xmlText', () => {
  it('for any text: no markup character survives', () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        assert.doesNotMatch(xmlText(text), /[<>"']|&(?!(amp|lt|gt|quot|#39);)/);
      }),
    );
  });
});

describe('jsonFileText', () => {
  it('escapes DEL, C1 and bidi characters, reads back the same value, and leaves benign JSON byte for byte', () => {
    const value = { name: 'a\u202eb\u2066c\u009bd\u007fe\u2028f', n: 1 };
    const text = jsonFileText(value, 1);
    assert.doesNotMatch(text, /[\u007f-\u009f\u200e\u200f\u2028-\u202e\u2066-\u2069]/);
    assert.deepEqual(JSON.parse(text), value);
    const benign = { cpu: 'AMD EPYC 7B13', list: [1, 'é', 'ü'] };
    assert.equal(jsonFileText(benign, 2), JSON.stringify(benign, null, 2));
    fc.assert(fc.property(fc.jsonValue(), (v) => assert.deepEqual(JSON.parse(jsonFileText(v)), JSON.parse(JSON.stringify(v)))));
  });
});

describe('summary.md of a hostile run folder', () => {
  it('escapes a child stderr in the failure list, the command line and meta.json fields', async () => {
    const dir = tempDir('coldstart-escape-');
    const golden = fixture('golden-run');
    copyFileSync(path.join(golden, 'samples.jsonl'), path.join(dir, 'samples.jsonl'));
    const failed = {
      cell: { framework: 'hono', variant: 'validated', routes: 1, runtime: 'node', build: 'plain', compileCache: 'off' },
      phase: 'sample',
      index: 6,
      ok: false,
      error: `exit code 1: ${HOSTILE.join(' ')}`,
      stderrTail: HOSTILE.join('\n'),
      durationMs: 10,
      at: '2026-11-22T17:42:05.957Z',
    };
    writeFileSync(path.join(dir, 'samples.jsonl'), `${readFileSync(path.join(dir, 'samples.jsonl'), 'utf8')}${JSON.stringify(failed)}\n`);
    const meta = JSON.parse(readFileSync(path.join(golden, 'meta.json'), 'utf8')) as Record<string, unknown>;
    meta.command = 'npm run metrics -- --out "a`b\n# injected heading\n<script>x</script>" --seed ``';
    meta.machine = { os: '<script>alert(1)</script>', cpu: '[x](javascript:alert(1))', cores: 2, memoryGB: 1 };
    meta.skipped = { '<img src=x onerror=alert(1)>': 'line\n# injected heading' };
    writeFileSync(path.join(dir, 'meta.json'), JSON.stringify(meta));
    await writeReport(dir);
    const summary = readFileSync(path.join(dir, 'summary.md'), 'utf8');
    assertInert(summary);
    assertInert(readFileSync(path.join(dir, 'scaling.md'), 'utf8'));
    assert.match(summary, /- \*\*Method:\*\* ``` npm run metrics -- --out "a`b # injected heading <script>x<\/script>" --seed `` ``` /);
    assert.match(summary, /1 × exit code 1: &lt;script&gt;alert\(1\)&lt;\/script&gt;/);
    assertEveryOutputInert(dir);
  });

  it('escapes the Status and Error Type of imported REPORT lines', async () => {
    const dir = tempDir('coldstart-escape-import-');
    const file = path.join(dir, 'coldstart-hono-1-validated.log');
    const report = (id: string, extra: string) =>
      `REPORT RequestId: ${id}\tDuration: 2.00 ms\tBilled Duration: 3 ms\tMemory Size: 128 MB\tMax Memory Used: 40 MB\t` +
      `Init Duration: 150.00 ms${extra}`;
    writeFileSync(
      file,
      [
        report('a1', ''),
        report('a2', '\tStatus: <script>alert(1)</script>\tError Type: <img src=x onerror=alert(1)>'),
        report('a3', '\tStatus: error\tError Type: [x](javascript:alert(1))'),
      ].join('\n'),
    );
    const out = path.join(dir, 'run');
    await importLambda({ files: [file], out, command: 'npm run lambda:import -- x' }, () => undefined);
    const summary = readFileSync(path.join(out, 'summary.md'), 'utf8');
    assertInert(summary);
    assert.match(summary, /Status: &lt;script&gt;/);
    assertEveryOutputInert(out);
  });
  it("escapes the levers' answer of an app: its differing answer, its file name and its runtime's version", async () => {
    const dir = tempDir('coldstart-escape-answer-');
    const cell = (build: string) => ({
      framework: 'shop',
      variant: 'plain',
      routes: 1,
      runtime: 'node',
      build,
      compileCache: 'off',
      source: 'app',
    });
    const marks = (ms: number) => ({ processStart: 1, start: 5, imported: 10, startup: ms - 3, listen: ms - 2, firstResponse: ms });
    const at = '2026-11-26T00:00:00.000Z';
    const lines = [1, 2].flatMap((index) => [
      { cell: cell('plain'), phase: 'sample', index, ok: true, marks: marks(200 + index), durationMs: 1, at },
      { cell: cell('bundle'), phase: 'sample', index, ok: true, marks: marks(100 + index), durationMs: 1, at },
      {
        cell: cell('bundle-min'),
        phase: 'sample',
        index,
        ok: false,
        error: `answers differently from the plain build: body ${HOSTILE.join(' ')}, the plain build's ok`,
        durationMs: 1,
        at,
      },
    ]);
    writeFileSync(path.join(dir, 'samples.jsonl'), lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    const meta = {
      version: 2,
      command: 'npm run measure -- --entry server.js --levers',
      spec: {
        source: { kind: 'apps', apps: [{ name: 'shop', kind: 'server', file: `/x/${HOSTILE.join('')}.js` }] },
        cells: { runtimes: ['node'], builds: ['plain', 'bundle', 'bundle-min'], compileCaches: ['off'] },
      },
      runtimes: { node: HOSTILE.join(' ') },
      shipped: { code: { x: { bytes: 1, what: HOSTILE.join(' ') } } },
    };
    writeFileSync(path.join(dir, 'meta.json'), JSON.stringify(meta));
    await writeReport(dir);
    const levers = readFileSync(path.join(dir, 'levers.md'), 'utf8');
    assert.match(levers, /not ranked: answers differently from the plain build: body &lt;script&gt;alert\(1\)&lt;\/script&gt;/);
    assert.ok(readdirSync(dir).includes('chart-levers.svg'));
    assertEveryOutputInert(dir);
  });
});
