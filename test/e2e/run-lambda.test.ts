/**
 * The Lambda target through the real command line and runner: a run with both targets writes both
 * everywhere (samples.jsonl, summary.csv, summary.md, the chart, compare), and a Lambda file that
 * fails during INIT, in its handler or by never asking for an event fails its own sample with a
 * one-line reason, leaving no process behind.
 */
import assert from 'node:assert/strict';
import { copyFileSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import { parse as parseCsv } from 'csv-parse/sync';
import { XMLParser } from 'fast-xml-parser';
import { SyntaxValidator } from 'fast-xml-validator';
import { contractOf } from '../../generators/contract.ts';
import { makeCell } from '../../metrics/core/cell.ts';
import type { SampleRecord } from '../../metrics/core/samples.ts';
import { readSamples } from '../../metrics/store/samples-file.ts';
import { childEnvironment } from '../../metrics/measure/environment.ts';
import { runSample } from '../../metrics/measure/sample.ts';
import { lambdaTarget } from '../../metrics/measure/targets/lambda.ts';
import { shippedCodeLoading } from '../../metrics/analyse/code-loading.ts';
import { markdownText } from '../../metrics/core/escape.ts';
import { validationNote } from '../../metrics/report/code-loading.ts';
import { fixture, processesWith, runCli, tempDir, waitFor, type CliResult } from '../support/helpers.ts';
import { probedFixture } from '../support/lambda-helpers.ts';

const TARGETS = ['server', 'lambda'] as const;
const FRAMEWORKS = ['hono', 'node-http'] as const;
const ROUTES = [1, 3] as const;
/** with Lambda cells the run also measures the hello-world reference (--lambda-reference on, the default): one cell more */
const CELLS = FRAMEWORKS.length * ROUTES.length * TARGETS.length + 1;

/** Every element of a parsed SVG (fast-xml-parser's preserveOrder tree), depth first, with its attributes. */
function elements(nodes: unknown[], found: { tag: string; attrs: Record<string, string> }[] = []) {
  for (const raw of nodes as Record<string, unknown>[]) {
    const tag = Object.keys(raw).find((k) => k !== ':@');
    if (!tag || tag === '#text') continue;
    found.push({ tag, attrs: (raw[':@'] as Record<string, string> | undefined) ?? {} });
    elements(raw[tag] as unknown[], found);
  }
  return found;
}

describe('a real run with --target server,lambda', () => {
  let dir: string;
  let run: CliResult;
  let self: CliResult;
  let samples: SampleRecord[];

  before(() => {
    dir = path.join(tempDir(), 'run');
    // the Lambda cells as they ran before the runtime lines (the machine's node, the probe, a warm cache): ric.test.ts runs the client
    // and lazy only, as every Lambda file was before --init (hono and node-http have no eager form: init-lever.test.ts)
    const local = ['--lambda-runtime', 'node', '--lambda-bootstrap', 'probe', '--file-cache', 'warm', '--init', 'lazy'];
    const args = ['--frameworks', FRAMEWORKS.join(','), '--routes', ROUTES.join(','), '--samples', '2', ...local, '--out', dir];
    run = runCli(['run', '--target', TARGETS.join(','), ...args]);
    assert.equal(run.status, 0, run.stderr);
    samples = readSamples(path.join(dir, 'samples.jsonl'));
    self = runCli(['compare', dir, dir]);
  });

  it('every cell of both targets ran, and every sample answered', () => {
    const timed = samples.filter((s) => s.phase === 'sample');
    const cells = new Set(timed.map((s) => `${s.cell.framework}|${s.cell.routes}|${s.cell.target}`));
    assert.equal(cells.size, CELLS, [...cells].join(' '));
    assert.ok(cells.has('reference|1|lambda'), 'the hello-world reference ran as a Lambda cell');
    assert.equal(timed.length, cells.size * 2);
    for (const s of samples) assert.equal(s.ok, true, `${s.cell.framework} ${s.cell.target} ${s.cell.routes}: ${s.error ?? ''}`);
    assert.doesNotMatch(run.stdout, /failed samples/);
  });

  it('a Lambda record has init and firstResponse, no listen, and the REPORT figures', () => {
    const lambda = samples.filter((s) => s.cell.target === 'lambda');
    assert.ok(lambda.length > 0);
    for (const s of lambda) {
      const what = `${s.cell.framework} ${s.cell.routes} #${s.index}`;
      assert.ok(s.marks?.init !== undefined && s.marks.init > 0, what);
      assert.ok(s.marks.firstResponse > s.marks.init, `${what}: the response comes after INIT`);
      assert.equal(s.marks.listen, undefined, what);
      const figures = s.lambda;
      assert.ok(figures, what);
      assert.equal(figures.initMs, s.marks.init, what);
      assert.ok(figures.durationMs > 0, what);
      assert.equal(figures.billedMs, Math.ceil(figures.initMs) + Math.ceil(figures.durationMs), what);
      assert.ok(Number.isInteger(figures.maxMemoryUsedMB) && figures.maxMemoryUsedMB! > 0, `${what}: ${figures.maxMemoryUsedMB}`);
    }
    for (const s of samples.filter((r) => r.cell.target === 'server')) {
      assert.equal(s.lambda, undefined);
      assert.ok(s.marks?.listen !== undefined);
    }
  });

  it('summary.csv has a target column with both values, a row per cell', () => {
    const rows = parseCsv<Record<string, string>>(readFileSync(path.join(dir, 'summary.csv'), 'utf8'), { columns: true });
    assert.equal(rows.length, CELLS);
    assert.deepEqual([...new Set(rows.map((r) => r.target))].sort(), ['lambda', 'server']);
    for (const row of rows) {
      // the REPORT columns and the estimate: filled for Lambda cells, empty for servers
      const lambda = row.target === 'lambda';
      for (const column of [
        'lambda_init_duration_median_ms',
        'lambda_duration_median_ms',
        'estimate_init_duration_ms',
        'estimate_init_code_loading_ms',
        'estimate_duration_ms',
      ]) {
        assert.equal(row[column] !== '' && Number.isFinite(Number(row[column])), lambda, `${row.file} ${column}: ${row[column]}`);
      }
      assert.equal(row.calibration_source!.startsWith('maxday/lambda-perf data, dates '), lambda, row.calibration_source);
    }
    for (const row of rows) {
      assert.equal(row.failures, '0', `${row.framework} ${row.target}`);
      assert.equal(row.status, 'measured');
      assert.equal(row.file!.startsWith('lambda/'), row.target === 'lambda', row.file);
    }
  });

  it('summary.md has the REPORT figures, the adapter-cost table, and prices Lambda cells by billed duration', () => {
    const md = readFileSync(path.join(dir, 'summary.md'), 'utf8');
    const section = (title: string) => {
      const start = md.indexOf(`\n## ${title}`);
      assert.ok(start >= 0, `a "${title}" section`);
      const end = md.indexOf('\n## ', start + 1);
      return md.slice(start, end < 0 ? undefined : end);
    };
    const report = section('Lambda: the REPORT figures');
    assert.match(report, /\| +\| Init Duration \(ms\) \| Duration \(ms\) \| Billed Duration \(ms\) \| Max Memory Used \(MB\) \|/);
    for (const f of FRAMEWORKS) for (const n of ROUTES) assert.match(report, new RegExp(`\\| lambda/${n}-startup-${f}-routes\\.js \\|`));
    assert.match(report, /\*\*What the adapter costs\*\*/);
    assert.match(report, /\| +\| server listen \| server first request \| server firstResponse \| lambda init \| lambda invoke \|/);
    assert.match(section('Cost: '), /Lambda cells \(`lambda\/…`\) are priced by their median Billed Duration/);
    assert.match(section('Cost: '), /priced by the \*\*estimate\*\* of their Billed Duration on Lambda/);
  });

  it('summary.md shows measured here, what Lambda adds and the estimate, with the calibration table provenance', () => {
    const md = readFileSync(path.join(dir, 'summary.md'), 'utf8');
    const start = md.indexOf('\n## Lambda: measured here, what Lambda adds, the estimate');
    assert.ok(start >= 0, md);
    const section = md.slice(start, md.indexOf('\n## ', start + 1));
    assert.match(section, /Calibration: maxday\/lambda-perf data, dates \d{4}-\d{2}-\d{2}–\d{4}-\d{2}-\d{2} \(hello world: /u);
    assert.ok(section.includes('`exports.handler = () => ({statusCode: 200})`'), 'the reference function is named');
    assert.match(
      section,
      new RegExp(
        // the samples carry INIT's split: the running part has its column (issue 41)
        String.raw`\| +\| as on Lambda \| Init measured here \| Init: Lambda adds \| Init: code loading \| ` +
          String.raw`Init: running \(× Lambda's CPU\) \| Init estimate \| Init interval \| Init p95 / p99 \| Duration measured here \|`,
      ),
    );
    for (const f of FRAMEWORKS) {
      for (const n of ROUTES) {
        assert.match(
          section,
          // measured here, what Lambda adds (its spread), the code-loading column (the excess here and at the fit's speed;
          // a negative term, on a loaded machine or at the reference's Init, is withheld with why)
          new RegExp(
            `\\| lambda/${n}-startup-${f}-routes\\.js \\| nodejs\\d+\\.x x86_64 1024 MB \\| [\\d.]+ \\| [+−][\\d.]+ \\(` +
              "[^|]*\\| (?:\\+[\\d.]+ \\(|withheld: )[^|]* here → [^|]* at the fit's speed",
          ),
        );
      }
    }
    assert.match(section, /The reference itself, real beside here/);
    const note = markdownText(validationNote(shippedCodeLoading()));
    assert.ok(section.includes(note), 'how far to trust the estimate is printed with it');
    assert.match(
      section,
      /Lambda's CPU speed, for Duration: .*\n\n- node: [\d.]+ ms of CPU here against \d+ ms on Lambda \(nodejs\d+\.x x86_64 2048 MB\)/u,
    );
  });

  it('chart-firstresponse.svg is well-formed, with a line per framework and target', () => {
    const svg = readFileSync(path.join(dir, 'chart-firstresponse.svg'), 'utf8');
    assert.doesNotThrow(() => SyntaxValidator.validate(svg), 'not well-formed XML');
    const tree = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '', preserveOrder: true }).parse(svg) as unknown[];
    const series = elements(tree)
      .filter((e) => e.tag === 'path' && e.attrs['aria-roledescription'] === 'line mark')
      .map((e) => /framework: (.+)$/.exec(e.attrs['aria-label'] ?? '')?.[1] ?? '?');
    const expected = [...FRAMEWORKS.flatMap((f) => TARGETS.map((t) => `${f} [target=${t}]`)), 'reference [target=lambda]'];
    assert.deepEqual(series.sort(), expected.sort());
  });

  it('compare of the run with itself lists the Lambda cells, none changed', () => {
    assert.equal(self.status, 0, self.stderr);
    for (const f of FRAMEWORKS)
      for (const n of ROUTES) assert.match(self.stdout, new RegExp(`\\| lambda/${n}-startup-${f}-routes\\.js \\| firstResponse \\|`));
    assert.match(
      self.stdout,
      /0 significant regression\(s\), 0 significant improvement\(s\), 9 without significant change, 0 not comparable/,
    );
  });
});

describe('a Lambda file that fails, through the runner', () => {
  /** One sample of `file` as the Lambda target; its folder's path marks its processes. */
  const sampleOf = (file: string, timeoutMs = 20_000) =>
    runSample({
      target: lambdaTarget,
      cell: makeCell({ framework: 'fixture', variant: 'validated', routes: 1, target: 'lambda' }),
      launch: { command: process.execPath, args: [file], cwd: path.dirname(file), env: childEnvironment(process.env).env },
      contract: contractOf({}),
      phase: 'sample',
      index: 1,
      timeoutMs,
      checkInvalidBody: false,
      firstHits: 0,
    });
  const cases: { name: string; file: () => { file: string; cleanup?: () => void }; timeoutMs?: number; reason: RegExp }[] = [
    {
      name: 'a module that throws during INIT',
      file: () => probedFixture('lambda-init-throws.js'),
      reason: /fixture failed while loading/,
    },
    {
      name: 'a handler that throws',
      file: () => probedFixture('lambda-handler-throws.js'),
      reason: /^POST \/route-0: the handler failed \(Runtime\.HandlerError: .*fixture handler failed/,
    },
    {
      name: 'a handler that crashes the process',
      file: () => probedFixture('lambda-handler-crash.js'),
      reason: /fixture crashed while handling/,
    },
    {
      name: 'a child that never asks for an event',
      file: () => {
        const file = path.join(tempDir('coldstart-lambda-never-next-'), 'index.js');
        copyFileSync(fixture('lambda-never-next.js'), file);
        return { file };
      },
      timeoutMs: 1500,
      reason: /^no ready line within \d+ ms \(hung or too slow\)/,
    },
  ];
  const results = new Map<string, { sample: SampleRecord; marker: string }>();

  before(async () => {
    for (const c of cases) {
      const { file, cleanup } = c.file();
      try {
        results.set(c.name, { sample: await sampleOf(file, c.timeoutMs), marker: path.dirname(file) });
      } finally {
        cleanup?.();
      }
    }
  });

  for (const c of cases) {
    it(`${c.name}: fails with a one-line reason, nothing left running`, async () => {
      const { sample, marker } = results.get(c.name)!;
      assert.equal(sample.ok, false);
      assert.ok(sample.error, 'a reason');
      assert.doesNotMatch(sample.error, /\n/);
      assert.match(sample.error, c.reason);
      assert.equal(sample.marks, undefined);
      assert.equal(sample.lambda, undefined);
      assert.ok(await waitFor(() => processesWith(marker).length === 0, 2000), `left running: ${processesWith(marker).join(', ')}`);
    });
  }
});
