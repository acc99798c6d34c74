/**
 * The findings' figures against the run folders they cite (issue 36: "a test fails when a finding's
 * figure drifts from its data"). Every run folder a finding links under results/published/ exists
 * with its samples; every table of a finding keeps to one time unit; and the tables and sentences
 * listed here are recomputed from the summary.csv and meta.json of the run they rest on (a table
 * rests on the last run folder linked above it): each cell of a checked column must be the figure the
 * run gives, rounded as the finding rounds it.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { parse } from 'csv-parse/sync';
import { median, quantile } from 'simple-statistics';
import { fitLinear } from '../../metrics/analyse/scaling.ts';
import { looCoverage, shippedCodeLoading } from '../../metrics/analyse/code-loading.ts';
import { resultsMarkdown } from '../../metrics/report/results-md.ts';
import { dollars } from '../../metrics/core/format.ts';
import type { RunMeta } from '../../metrics/core/meta.ts';
import { ROOT } from '../support/in-process.ts';

const FINDINGS = path.join(ROOT, 'docs', 'findings');
/** A bracketed interval: "(1905–3182)", "(0.802 to 1.267)". */
const BRACKETED_INTERVAL = /\(\s*-?[\d,.]+\s*(?:–|-|to)\s*-?[\d,.]+\s*\)/;
const BEYOND = 'estimate_beyond_evidence_x86_64';
const PUBLISHED_LINK = /results\/published\/([\w.-]+)/g;

type Row = Record<string, string>;

function findingText(name: string): string {
  return readFileSync(path.join(FINDINGS, name), 'utf8');
}

const csvCache = new Map<string, Row[]>();
function summaryCsv(run: string): Row[] {
  let rows = csvCache.get(run);
  if (!rows) {
    rows = parse<Row>(readFileSync(path.join(ROOT, 'results', 'published', run, 'summary.csv'), 'utf8'), { columns: true });
    csvCache.set(run, rows);
  }
  return rows;
}

function metaOf(run: string): RunMeta {
  return JSON.parse(readFileSync(path.join(ROOT, 'results', 'published', run, 'meta.json'), 'utf8')) as RunMeta;
}

/** A summary.csv row of a framework at a route count (the run's only cell there, or the counted one when `measure` says). */
function rowOf(run: string, framework: string, routes: number): Row {
  const rows = summaryCsv(run).filter((r) => r.framework === framework && Number(r.routes) === routes);
  assert.equal(rows.length, 1, `${run}: one cell of ${framework}@${routes} (found ${rows.length})`);
  return rows[0]!;
}

const num = (row: Row, column: string): number => {
  const value = row[column];
  assert.ok(value !== undefined && value !== '', `summary.csv has ${column}`);
  return Number(value);
};

/** A table of a finding: the header line starting with `header`, its rows as cells, and the run folder linked last above it. */
interface Table {
  run: string;
  header: string[];
  rows: string[][];
}

function cellsOf(line: string): string[] {
  return line
    .slice(1, line.lastIndexOf('|'))
    .split('|')
    .map((c) => c.trim());
}

function tablesOf(text: string, header: string): Table[] {
  const lines = text.split('\n');
  const tables: Table[] = [];
  lines.forEach((line, i) => {
    if (!line.startsWith(header)) return;
    const above = lines.slice(0, i).join('\n');
    const run = [...above.matchAll(PUBLISHED_LINK)].at(-1)?.[1];
    assert.ok(run, `the table "${header}" follows a link to its run folder`);
    const rows: string[][] = [];
    for (let j = i + 2; j < lines.length && lines[j]!.startsWith('|'); j++) rows.push(cellsOf(lines[j]!));
    tables.push({ run, header: cellsOf(line), rows });
  });
  assert.ok(tables.length, `a table starting "${header}"`);
  return tables;
}

/** ms as the Lambda tables round them: whole milliseconds. */
const whole = (value: number) => Math.round(value).toString();
const P95 = 'estimate_init_duration_p95_ms_x86_64';
/** A signed figure: one decimal below 100, whole above; the minus sign U+2212. */
function signed(value: number): string {
  const text = Math.abs(value) >= 100 ? Math.abs(value).toFixed(0) : Math.abs(value).toFixed(1);
  return `${value < 0 ? '−' : '+'}${text}`;
}
const signedPercent = (share: number) => `${signed(share * 100)} %`;

/** Compares every checked column of every row; returns the mismatches as "row: column: finding says X, the run gives Y". */
function mismatches(
  table: Table,
  expected: (framework: string, routes: number) => Record<string, string>,
  rowFilter = (cells: string[]) => /^\d+$/.test(cells[1] ?? ''),
): string[] {
  const wrong: string[] = [];
  for (const cells of table.rows.filter(rowFilter)) {
    const [framework, routes] = [cells[0]!, Number(cells[1])];
    const figures = expected(framework, routes);
    for (const [column, value] of Object.entries(figures)) {
      const index = table.header.indexOf(column);
      assert.ok(index >= 0, `column "${column}" in ${table.header.join(' | ')}`);
      if (cells[index] !== value)
        wrong.push(`${framework}@${routes}: ${column}: the finding says "${cells[index]}", ${table.run} gives "${value}"`);
    }
  }
  return wrong;
}

describe('the findings against their run folders', () => {
  const findings = readdirSync(FINDINGS).filter((f) => f.endsWith('.md'));

  it('every run folder a finding links under results/published/ is there, with its samples and meta.json', () => {
    const missing: string[] = [];
    for (const finding of findings) {
      for (const [, run] of findingText(finding).matchAll(PUBLISHED_LINK)) {
        for (const file of ['samples.jsonl', 'meta.json']) {
          if (!existsSync(path.join(ROOT, 'results', 'published', run!, file))) missing.push(`${finding}: ${run}/${file}`);
        }
      }
    }
    assert.deepEqual(missing, []);
  });

  it('every table keeps to one time unit (ms or µs, never both in its header)', () => {
    const mixed: string[] = [];
    for (const finding of findings) {
      for (const line of findingText(finding).split('\n')) {
        if (line.startsWith('|') && /\bms\b/.test(line) && /µs/.test(line)) mixed.push(`${finding}: ${line.slice(0, 80)}`);
      }
    }
    assert.deepEqual(mixed, []);
  });

  it('instructions per route: every phase, total and the per-route slope, from 2026-11-26-instructions', () => {
    const text = findingText('2026-11-26-instructions-per-route.md');
    const [table] = tablesOf(text, '| framework | routes | import | registration | listen | first request | total |');
    assert.equal(table!.run, '2026-11-26-instructions');
    const millions = (row: Row, figure: string) => (num(row, `instructions_${figure}_median`) / 1e6).toFixed(1);
    const slope = (framework: string) => {
      const points = summaryCsv(table!.run)
        .filter((r) => r.framework === framework)
        .map((r): [number, number] => [Number(r.routes), num(r, 'instructions_total_median')]);
      return fitLinear(points).perRouteMs / 1e6;
    };
    const perRoute = table!.header.find((h) => h.startsWith('per route'))!;
    const wrong = mismatches(table!, (framework, routes) => {
      const row = rowOf(table!.run, framework, routes);
      return {
        import: millions(row, 'import'),
        registration: millions(row, 'registration'),
        listen: millions(row, 'listen'),
        'first request': millions(row, 'firstRequest'),
        total: millions(row, 'total'),
        [perRoute]: routes === 1000 ? `${slope(framework).toFixed(2)} M` : '',
      };
    });
    assert.deepEqual(wrong, []);
    const said = /\*\*fastify pays for its routes at listen\*\*: ([\d.]+) M instructions per added route/.exec(text);
    assert.equal(said?.[1], slope('fastify').toFixed(2), 'the conclusion quotes the table');
  });

  it('the Lambda matrix: Init here, the term, the estimates and $ of both runs, and the quiet run against the busy one', () => {
    const text = findingText('2026-11-26-lambda-default-matrix.md');
    const tables = tablesOf(
      text,
      '| framework | routes | Init here | term | estimate x86_64 (p95) | estimate arm64 | $/M x86_64 | $/M arm64 |',
    );
    assert.deepEqual(
      tables.map((t) => t.run),
      ['2026-11-26-lambda', '2026-11-26-lambda-10'],
    );
    const figures = (run: string, framework: string, routes: number) => {
      const row = rowOf(run, framework, routes);
      return {
        'Init here': whole(num(row, 'lambda_init_duration_median_ms')),
        term: signed(num(row, 'estimate_init_code_loading_ms')),
        'estimate x86_64 (p95)': `${whole(num(row, 'estimate_init_duration_ms_x86_64'))} (${whole(num(row, P95))})`,
        'estimate arm64': whole(num(row, 'estimate_init_duration_ms_arm64')),
        '$/M x86_64': dollars(num(row, 'estimate_cost_per_million_usd_x86_64')),
        '$/M arm64': dollars(num(row, 'estimate_cost_per_million_usd_arm64')),
      };
    };
    const [busy, quiet] = tables as [Table, Table];
    const wrong = [
      ...mismatches(busy, (framework, routes) => figures(busy.run, framework, routes)),
      ...mismatches(quiet, (framework, routes) => {
        const here = num(rowOf(quiet.run, framework, routes), 'estimate_init_duration_ms_x86_64');
        const there = num(rowOf(busy.run, framework, routes), 'estimate_init_duration_ms_x86_64');
        return { ...figures(quiet.run, framework, routes), 'estimate vs the busy run': signedPercent(here / there - 1) };
      }),
    ];
    assert.deepEqual(wrong, []);
    // the paragraph under the quiet run's table: how its Init and estimates moved, over the table's cells
    const cells = quiet.rows.filter((c) => /^\d+$/.test(c[1]!)).map((c): [string, number] => [c[0]!, Number(c[1])]);
    const moved = (column: string) => cells.map(([f, n]) => num(rowOf(quiet.run, f, n), column) / num(rowOf(busy.run, f, n), column) - 1);
    const estimates = moved('estimate_init_duration_ms_x86_64');
    const said = new RegExp(
      String.raw`Init here fell by (\d+) % \(median over the (\d+) cells\), the estimates by ([\d.]+) %\*\* ` +
        String.raw`\(interquartile range\s+(\S+) to (\S+) %`,
    ).exec(text);
    assert.deepEqual(said?.slice(1), [
      (-median(moved('lambda_init_duration_median_ms')) * 100).toFixed(0),
      `${cells.length}`,
      (-median(estimates) * 100).toFixed(1),
      signed(quantile(estimates, 0.25) * 100),
      signed(quantile(estimates, 0.75) * 100),
    ]);
  });

  it("the Lambda matrix's sentences: each run's share of other processes, and hono's estimate at 1 route", () => {
    const text = findingText('2026-11-26-lambda-default-matrix.md');
    const others = (run: string) => `${Math.round((metaOf(run).load?.run?.others ?? NaN) * 100)}`;
    assert.equal(/\*\*Busy:\*\* [^*]*?other processes (\d+) % of the CPU time/.exec(text)?.[1], others('2026-11-26-lambda'));
    assert.equal(/median 0\.93, other processes (\d+) % of the CPU time/.exec(text)?.[1], others('2026-11-26-lambda-10'));
    const hono = /hono at 1 route: (\d+) ms here, ratio\s+[\d.]+, estimate (\d+) ms/.exec(text);
    const row = rowOf('2026-11-26-lambda', 'hono', 1);
    assert.deepEqual(
      [hono?.[1], hono?.[2]],
      [whole(num(row, 'lambda_init_duration_median_ms')), whole(num(row, 'estimate_init_duration_ms_x86_64'))],
    );
  });
  it('the Lambda Init split: Init here, the split, the estimate (interval only inside the evidence), $, from 2026-11-27-lambda', () => {
    const text = findingText('2026-11-27-lambda-init-split.md');
    const [table] = tablesOf(text, '| framework | routes | init | Init here |');
    assert.equal(table!.run, '2026-11-27-lambda');
    const rowAt = (framework: string, routes: number, init: string) => {
      const rows = summaryCsv(table!.run).filter((r) => r.framework === framework && Number(r.routes) === routes && r.init === init);
      assert.equal(rows.length, 1, `${table!.run}: one cell of ${framework}@${routes} init=${init}`);
      return rows[0]!;
    };
    const init = table!.header.indexOf('init');
    const wrong: string[] = [];
    for (const cells of table!.rows) {
      const [framework, routes] = [cells[0]!, Number(cells[1])];
      const row = rowAt(framework, routes, cells[init]!);
      const estimate = whole(num(row, 'estimate_init_duration_ms_x86_64'));
      const beyond = row[BEYOND] ?? '';
      const expected: Record<string, string> = {
        'Init here': whole(num(row, 'lambda_init_duration_median_ms')),
        loading: whole(num(row, 'lambda_init_loading_median_ms')),
        running: whole(num(row, 'lambda_init_running_median_ms')),
        'split estimate': beyond
          ? estimate
          : `${estimate} (${whole(num(row, 'estimate_init_duration_low_ms_x86_64'))}–` +
            `${whole(num(row, 'estimate_init_duration_high_ms_x86_64'))})`,
        'beyond evidence': beyond ? beyond.replace(/^beyond evidence: /, '') : `inside: ${row.estimate_interval_coverage_x86_64}`,
        '$/M x86_64': dollars(num(row, 'estimate_cost_per_million_usd_x86_64')),
      };
      for (const [column, value] of Object.entries(expected)) {
        const index = table!.header.indexOf(column);
        assert.ok(index >= 0, `column "${column}"`);
        if (cells[index] !== value)
          wrong.push(`${framework}@${routes} ${cells[init]}: ${column}: "${cells[index]}", the run gives "${value}"`);
      }
    }
    assert.deepEqual(wrong, []);
    // fastify's eager against lazy at 1,000 and 5,000 routes: all beyond evidence, and the split that carries the claim
    const fastify = ['lazy', 'eager'].flatMap((mode) => [1000, 5000].map((n) => rowAt('fastify', n, mode)));
    const onLoading = fastify.map((r) => Number(/×([\d.]+) on loading, running part unvalidated/.exec(r[BEYOND] ?? '')?.[1]));
    const eager = rowAt('fastify', 5000, 'eager');
    const halving = new RegExp(
      String.raw`All four estimates are beyond evidence \(×([\d.]+) to ×([\d.]+) on loading, running part unvalidated\)` +
        String.raw`.*?eager, ([\d,]+) of the ([\d,]+) ms of Init here is the running part; .*?\(its Init here (\d+) ms\)`,
    ).exec(text.replace(/\n\s*/g, ' '));
    const thousands = (value: number) => Math.round(value).toLocaleString('en-US');
    assert.deepEqual(halving?.slice(1), [
      Math.min(...onLoading).toFixed(2),
      Math.max(...onLoading).toFixed(2),
      thousands(num(eager, 'lambda_init_running_median_ms')),
      thousands(num(eager, 'lambda_init_duration_median_ms')),
      whole(num(rowAt('fastify', 5000, 'lazy'), 'lambda_init_duration_median_ms')),
    ]);
    // the sentence counting the cells beyond evidence, and the range of their factors
    const rows = summaryCsv(table!.run).filter((r) => r.status === 'measured' && r.framework !== 'reference');
    const factors = rows.map((r) => Number(/×([\d.]+) on loading/.exec(r[BEYOND] ?? '')?.[1])).filter((f) => f > 0);
    const said = new RegExp(
      String.raw`no interval: (\d+) of the (\d+) rows are beyond the 101 ms[^(]*\(×([\d.]+) to\s+×([\d.]+)\), ` +
        String.raw`and all (\d+) have an INIT running part`,
    ).exec(text.replace(/\n\s*/g, ' '));
    assert.deepEqual(said?.slice(1), [
      `${factors.length}`,
      `${rows.length}`,
      Math.min(...factors).toFixed(2),
      Math.max(...factors).toFixed(2),
      `${rows.filter((r) => /running part unvalidated/.test(r[BEYOND] ?? '')).length}`,
    ]);
  });

  it('no finding gives a bracketed interval beside an estimate its run folder marks beyond evidence', () => {
    const offending: string[] = [];
    let checked = 0;
    for (const finding of findings) {
      const lines = findingText(finding).split('\n');
      lines.forEach((line, i) => {
        const header = cellsOf(line);
        if (!line.startsWith('| framework | routes |') || !header.some((h) => /estimate|\$/.test(h))) return;
        const run = [...lines.slice(0, i).join('\n').matchAll(PUBLISHED_LINK)].at(-1)?.[1];
        if (!run || !existsSync(path.join(ROOT, 'results', 'published', run, 'summary.csv'))) return;
        if (!summaryCsv(run).some((r) => BEYOND in r)) return;
        const initColumn = header.indexOf('init');
        for (let j = i + 2; j < lines.length && lines[j]!.startsWith('|'); j++) {
          const cells = cellsOf(lines[j]!);
          const matched = summaryCsv(run).filter(
            (r) =>
              r.framework === cells[0] &&
              r.routes === cells[1] &&
              r.status === 'measured' &&
              (initColumn < 0 || r.init === cells[initColumn]),
          );
          if (!matched.length || !matched.every((r) => r[BEYOND])) continue;
          checked += 1;
          header.forEach((h, k) => {
            if (/estimate|\$/.test(h) && BRACKETED_INTERVAL.test(cells[k] ?? ''))
              offending.push(`${finding}: ${cells[0]}@${cells[1]}: "${h}" is "${cells[k]}", and ${run} says "${matched[0]![BEYOND]}"`);
          });
        }
      });
    }
    assert.ok(checked > 0, 'some table row beyond evidence was checked');
    assert.deepEqual(offending, []);
  });

  it("the code-loading term's band: its leave-one-out coverage as the data file gives it and the run folder prints it", () => {
    const coverage = looCoverage(shippedCodeLoading().rows);
    assert.ok(coverage);
    const share = Math.round((100 * coverage.within) / coverage.n);
    const phrase = `${coverage.within} of the ${coverage.n} held-out real Init figures (${share} %)`;
    const text = findingText('2026-11-26-code-loading-term.md').replace(/\n\s*/g, ' ');
    assert.ok(text.includes(`**${phrase} fell inside**`), `the finding says "${phrase}"`);
    assert.ok(text.includes(`checked coverage (${coverage.within} of ${coverage.n}, ${share} %)`));
    const summary = readFileSync(path.join(ROOT, 'results', 'published', '2026-11-27-lambda', 'summary.md'), 'utf8');
    assert.ok(summary.includes(`${phrase} fell inside`), '2026-11-27-lambda/summary.md prints the same check');
    // the cells beyond evidence it counts in 2026-11-27-lambda, and in the matrix finding in 2026-11-26-lambda
    const inside = summaryCsv('2026-11-27-lambda').filter((r) => r.status === 'measured' && r.framework !== 'reference' && !r[BEYOND]);
    assert.deepEqual(
      inside.map((r) => `${r.framework}@${r.routes}`),
      ['node-http@1'],
    );
    assert.ok(text.includes('leaves one cell of 36 with an interval, node-http at 1 route'));
    const matrix = summaryCsv('2026-11-26-lambda').filter((r) => r.status === 'measured' && r.framework !== 'reference');
    const beyond = matrix.filter((r) => r[BEYOND]);
    const factor = (framework: string, routes: string) => matrix.find((r) => r.framework === framework && r.routes === routes)![BEYOND]!;
    const said = /(\d+) of the run's (\d+) cells, from (×[\d.]+) for hono at 500 routes to\s+(×[\d.]+) for deepkit at 5,000/.exec(
      findingText('2026-11-26-lambda-default-matrix.md'),
    );
    assert.deepEqual(said?.slice(1), [
      `${beyond.length}`,
      `${matrix.length}`,
      /×[\d.]+/.exec(factor('hono', '500'))![0],
      /×[\d.]+/.exec(factor('deepkit', '5000'))![0],
    ]);
  });

  it('counts and the checkout path: the determinism finding and RESULTS.md quote the shifts measured, not "transfer"', () => {
    const guide = readFileSync(path.join(ROOT, 'docs', 'guide', 'reading-results.md'), 'utf8').replace(/\n\s*/g, ' ');
    const measured = /paths of 10, 60 and 125 characters was ([\d.]+), ([\d.]+) \(\+([\d.]+) %\) and ([\d.]+) \(\+([\d.]+) %\)/.exec(guide);
    assert.ok(measured, 'reading-results.md gives the path measurement');
    const [base, at60, , at125] = [Number(measured[1]), Number(measured[2]), 0, Number(measured[4])];
    const shifts = [((at60 / base - 1) * 100).toFixed(1), ((at125 / base - 1) * 100).toFixed(1)];
    assert.deepEqual([measured[3], measured[5]], shifts, "the guide's percentages follow from its counts");
    const finding = findingText('2026-11-23-instruction-count-determinism.md').replace(/\n\s*/g, ' ');
    const said =
      /paths of 10, 60 and 125 characters was ([\d.]+), ([\d.]+) \(\*\*\+([\d.]+) %\*\*\) and ([\d.]+) \(\*\*\+([\d.]+) %\*\*\)/.exec(
        finding,
      );
    assert.deepEqual(said?.slice(1), [measured[1], measured[2], shifts[0], measured[4], shifts[1]]);
    assert.doesNotMatch(finding, /counted 0\.2 % more from another folder\)/);
    for (const doc of ['README.md', 'docs/guide/reading-results.md']) {
      const said = readFileSync(path.join(ROOT, doc), 'utf8').replace(/\n\s*/g, ' ');
      assert.doesNotMatch(
        said,
        /instruction counts\)?,? with wall time beside (?:them|it)[^.]*: (?:those|which) transfers? between machines/,
        doc,
      );
    }
    const page = resultsMarkdown([], 'results/published').replace(/\n/g, ' ');
    assert.doesNotMatch(page, /counts?[^.]*: those transfer between machines/);
    assert.match(page, new RegExp(`\\+${shifts[0]} % from a path 50 characters longer, \\+${shifts[1]} % from 115 longer`));
  });

  it("the server matrix's per-route sentence: fastify's and hapi's fitted curves on listen, from scaling.csv", () => {
    const rows = parse<Row>(readFileSync(path.join(ROOT, 'results', 'published', '2026-11-26-server-matrix', 'scaling.csv'), 'utf8'), {
      columns: true,
    });
    const ready = (framework: string) => rows.find((r) => r.framework === framework && r.metric === 'ready')!;
    const at = (r: Row, n: number) =>
      `${r[`ms_per_route_at_${n}`]} (${r[`ms_per_route_at_${n}_ci95_low`]} to ${r[`ms_per_route_at_${n}_ci95_high`]})`;
    const fastify = ready('fastify');
    const hapi = ready('hapi');
    const text = findingText('2026-11-26-server-default-matrix.md').replace(/\n\s*/g, ' ');
    const said = new RegExp(
      String.raw`fastify's ${'`listen`'} is (\w+) and ([\w-]+) \(in ([\d.]+) % of resamples\), ([\d.]+) ms a route (\([^)]*\)) ` +
        String.raw`at 1,000 routes and ([\d.]+ \([^)]*\)) at 5,000; hapi's is a (\w+) line, growth (not determined) ` +
        String.raw`\(sub-linear in (\d+) % of resamples, short of 95 %\), ([\d.]+) ms a route (\([^)]*\)) at 1,000 routes`,
    ).exec(text);
    assert.deepEqual(said?.slice(1), [
      fastify.model,
      fastify.growth,
      (Number(fastify.growth_share) * 100).toFixed(1),
      fastify.ms_per_route_at_1000,
      at(fastify, 1000).slice(fastify.ms_per_route_at_1000!.length + 1),
      at(fastify, 5000),
      hapi.model,
      'not determined',
      /sub-linear in (\d+) %/.exec(hapi.growth!)![1],
      hapi.ms_per_route_at_1000,
      at(hapi, 1000).slice(hapi.ms_per_route_at_1000!.length + 1),
    ]);
  });
  it("the Lambda Init split's addendum: the running part on both clocks and the estimates of 2026-11-27-lambda-init-cpu and -init", () => {
    const text = findingText('2026-11-27-lambda-init-split.md');
    const [table] = tablesOf(text, '| cell (x86_64, 1024 MB) |');
    assert.equal(table!.run, '2026-11-27-lambda-init-cpu');
    const cell = (run: string, framework: string, init: string, routes: number) => {
      const rows = summaryCsv(run).filter((r) => r.framework === framework && r.init === init && Number(r.routes) === routes);
      assert.equal(rows.length, 1, `${run}: ${framework} ${init}@${routes}`);
      return rows[0]!;
    };
    const ms = (value: number, digits: number) =>
      `${value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits })} ms`;
    const wrong: string[] = [];
    for (const cells of table!.rows) {
      const m = /^(\w+) (eager|lazy), ([\d,]+) routes$/.exec(cells[0]!);
      assert.ok(m, cells[0]);
      const [framework, init, routes] = [m[1]!, m[2]!, Number(m[3]!.replace(/,/g, ''))];
      const here = cell(table!.run, framework, init, routes);
      const before = cell('2026-11-27-lambda-init', framework, init, routes);
      const expected = [
        ms(num(here, 'lambda_init_running_median_ms'), 1),
        ms(num(here, 'lambda_init_running_cpu_median_ms'), 1),
        ms(Math.round(num(here, 'estimate_init_duration_ms_x86_64')), 0),
        dollars(num(here, 'estimate_cost_per_million_usd_x86_64')),
        `${ms(Math.round(num(before, 'estimate_init_duration_ms_x86_64')), 0)}, ` +
          dollars(num(before, 'estimate_cost_per_million_usd_x86_64')),
      ];
      expected.forEach((value, k) => {
        if (cells[k + 1] !== value) wrong.push(`${cells[0]}: ${table!.header[k + 1]}: "${cells[k + 1]}", the runs give "${value}"`);
      });
      // every cell of the addendum is beyond evidence in its run: no interval may stand beside it
      assert.ok(here[BEYOND], `${cells[0]} is beyond evidence in ${table!.run}`);
      assert.ok(!cells.some((c) => BRACKETED_INTERVAL.test(c)), `${cells[0]}: no bracketed interval`);
    }
    assert.deepEqual(wrong, []);
  });
});
