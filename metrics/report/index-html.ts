/**
 * results/index.html: the published run folders (results/published/<name>/) as one sortable table,
 * each linked to its report.html and summary.md, with what its meta.json says (when it ran, the
 * command, frameworks and route counts, the machine and its load). Self-contained like report.html
 * (style and script inline, nothing fetched); every text from outside is escaped and every folder
 * name is a link path encoded as one; the same folders give the same bytes.
 */
import { QUESTIONS, type Headline, type RankedCell } from '../analyse/headline.ts';
import { xmlText } from '../core/escape.ts';
import type { RunMeta } from '../core/meta.ts';
import { tableHtml, type TableRow } from './html-tables.ts';
import { runLoad } from './markdown.ts';
import { pageAsset, pageHead } from './page-assets.ts';
import type { IndexChart } from './index-charts.ts';
import { COUNTED_NAME } from '../core/kinds.ts';

export interface PublishedRun {
  /** the folder's name under results/published/ */
  name: string;
  meta: RunMeta | undefined;
  /** which of report.html and summary.md the folder holds */
  files: string[];
  /** its ranking at its largest route count and its floor (analyse/headline.ts); absent without samples */
  headline?: Headline;
  /** the questions this run is the one to quote for (analyse/headline.ts runsToQuote) */
  quote?: string[];
}

/** A ranked figure as the page shows it: ms, or instructions in millions. */
function figure(cell: RankedCell, headline: Headline): string {
  return headline.basis === COUNTED_NAME ? `${(cell.value / 1e6).toFixed(1)} M` : `${cell.value.toFixed(1)} ms`;
}

/** The headline figures: the cheapest and the dearest series at the largest route count, and the floor. */
export function headlineText(headline: Headline | undefined): string {
  if (!headline || headline.ranking.length === 0) return '–';
  const { ranking, routes, floor, basis } = headline;
  const first = ranking[0]!;
  const last = ranking[ranking.length - 1]!;
  const on = basis === 'cpu' ? 'CPU time' : basis === COUNTED_NAME ? COUNTED_NAME : 'wall time';
  const ends =
    ranking.length > 1
      ? `fastest ${first.label} ${figure(first, headline)}, slowest ${last.label} ${figure(last, headline)}`
      : `${first.label} ${figure(first, headline)}`;
  const floorText = floor ? `; floor node-http@${floor.routes} ${figure(floor, headline)}` : '';
  return `at ${routes} route${routes === 1 ? '' : 's'}, ${on} to first response: ${ends}${floorText}`;
}

const CSP = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'";

/** A list of meta.json's spec (frameworks, routes) as text, when there is one. */
function listOf(value: unknown): string {
  return Array.isArray(value) ? value.map(String).join(', ') : '–';
}

function runRow(run: PublishedRun): TableRow {
  const { meta } = run;
  const load = runLoad(meta);
  // the frameworks and routes of generated files or of REPORT lines imported; a run of apps has none
  const source = meta?.spec.source;
  const selection = source && source.kind !== 'apps' ? source : undefined;
  const links = run.files.map((file) => ({ href: `published/${encodeURIComponent(run.name)}/${file}`, text: file }));
  return {
    cells: [
      { text: run.name },
      { text: meta?.startedAt ?? '–' },
      { text: meta ? listOf(selection?.frameworks ?? Object.keys(meta.frameworks)) : '–' },
      { text: meta ? listOf(selection?.routes) : '–' },
      { text: meta ? `${meta.machine.os} | ${meta.machine.cores} vCPUs | ${meta.machine.cpu}` : '–' },
      load ? { text: load.during.load1.median.toFixed(2), sort: load.during.load1.median } : { text: '–' },
      { text: headlineText(run.headline) },
      { text: run.quote?.join('; ') ?? '' },
      { text: meta?.command ?? '–' },
      { text: run.files.join(' '), links },
    ],
  };
}

/** Which run to quote for which question, above the table. */
function quoteList(runs: readonly PublishedRun[]): string[] {
  const items = QUESTIONS.flatMap(({ question }) => {
    const run = runs.find((r) => r.quote?.includes(question));
    if (!run) return [];
    const href = `published/${encodeURIComponent(run.name)}/${run.files[0] ?? ''}`;
    return [`<li>${xmlText(question)}: <a href="${xmlText(href)}">${xmlText(run.name)}</a></li>`];
  });
  if (!items.length) return [];
  return [
    '<p class="note">Which run to quote (a quiet machine first, then the most frameworks × route counts, then the most samples; ' +
      'rankings rest on CPU time or instruction counts, which transfer between machines; check one on yours with ' +
      '<code>npm run verify -- results/published/NAME</code>):</p>',
    `<ul class="quote">${items.join('')}</ul>`,
  ];
}

/**
 * The answers at a glance: a figure per chart (report/index-charts.ts), its question and the run it is
 * drawn from (linked), the SVG inline (nothing fetched, no script).
 */
function chartSection(charts: readonly IndexChart[], runs: readonly PublishedRun[]): string[] {
  if (charts.length === 0) return [];
  const figures = charts.map((chart) => {
    const run = runs.find((r) => r.name === chart.run);
    const href = `published/${encodeURIComponent(chart.run)}/${run?.files[0] ?? ''}`;
    return (
      `<figure class="index-chart" id="chart-${chart.id}">\n<figcaption>${xmlText(chart.question)}: ` +
      `<a href="${xmlText(href)}">${xmlText(chart.run)}</a></figcaption>\n${chart.svg.trimEnd()}\n</figure>`
    );
  });
  return ['<h2>The answers at a glance</h2>', ...figures];
}

/** The index page of results/published/, with its charts (report/index-charts.ts) above the list of runs. */
export function resultsIndexHtml(runs: PublishedRun[], charts: readonly IndexChart[] = []): string {
  const headers = ['run', 'started', 'frameworks', 'routes', 'machine', 'load (median)', 'headline', 'quote it for', 'command', 'report'];
  const body = runs.length
    ? tableHtml('runs', headers, runs.map(runRow))
    : '<p class="note">No run is published yet. A run folder copied to results/published/&lt;date&gt;-&lt;name&gt;/ ' +
      'is listed here after <code>npm run results:index</code>.</p>';
  return `${[
    ...pageHead(CSP, 'coldstart: published runs'),
    '<h1>coldstart: published runs</h1>',
    '<p class="note">Each run folder holds samples.jsonl and meta.json, from which <code>npm run report -- DIR</code> ' +
      'rebuilds its report byte for byte; open its report.html for every chart of a run. Click a header to sort.</p>',
    ...quoteList(runs),
    ...chartSection(charts, runs),
    '<h2>Every published run</h2>',
    body,
    `<script>\n${pageAsset('table-sort.js')}</script>`,
    '</body>',
    '</html>',
  ].join('\n')}\n`;
}
