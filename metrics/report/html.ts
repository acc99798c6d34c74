/**
 * report.html: one self-contained page per run that works offline. Its charts are vega views
 * (specs compiled from vega-lite here, drawn by vega's browser bundle, which the page carries
 * inline: nothing is fetched, and its Content-Security-Policy forbids fetching), with tooltips, a
 * route-count axis and toggles for every dimension the run varies; its tables sort on a header's
 * click; the calibration and the machine are shown as summary.md shows them. The data sits in the
 * page as JSON (escaped for a <script> element), every text from outside is escaped for HTML, and
 * the same run folder gives the same bytes (the only times are meta.json's).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { CellSummary } from '../analyse/aggregate.ts';
import { oneLine, scriptJson, xmlText } from '../core/escape.ts';
import { duration } from '../core/format.ts';
import { loadText } from '../core/load.ts';
import type { RunMeta } from '../core/meta.ts';
import { codeLoadingParagraph, validationNote } from './code-loading.ts';
import { TAILS_NOTE } from './init-tails.ts';
import type { ReportContext } from './contract.ts';
import { compileSpec, curveHtmlSpec, estimateHtmlSpec, filterSignal, PHASES_ROUTES_SIGNAL, phasesHtmlSpec } from './html-charts.ts';
import { hasCurve } from './charts.ts';
import { calibratedBands, curveData, estimateData, phaseData, togglesOf, type Toggle } from './html-data.ts';
import { curveHtmlTable, estimateTable, fitsTable, resultsTable } from './html-tables.ts';
import { appsRun, runLoad } from './markdown.ts';
import { costHtml, howToReadHtml, warningsHtml } from './html-answers.ts';
import { webFunctionsHtml } from './web-functions.ts';
import { inlineText, pageAsset, pageHead } from './page-assets.ts';

export const HTML_REPORT = 'report.html';

/** Nothing is fetched: scripts and styles are inline; vega compiles its expressions with Function ('unsafe-eval'). */
const CSP = "default-src 'none'; script-src 'unsafe-inline' 'unsafe-eval'; style-src 'unsafe-inline'; img-src data:";

/** vega's browser bundle (UMD, defines `vega`) and its version, from the installed package. */
function vegaBundle(): { version: string; code: string } {
  const build = path.dirname(createRequire(import.meta.url).resolve('vega'));
  const { version } = JSON.parse(readFileSync(path.join(build, '..', 'package.json'), 'utf8')) as { version: string };
  return { version, code: inlineText(path.join(build, 'vega.min.js')) };
}

interface Chart {
  id: string;
  spec: unknown;
  /** HTML above the chart (the phase chart's route count) */
  controls?: string;
}

function selectHtml(attributes: string, label: string, options: { value: string; text: string }[], selected: string): string {
  const items = options.map(
    (o) => `<option value="${xmlText(o.value)}"${o.value === selected ? ' selected' : ''}>${xmlText(o.text)}</option>`,
  );
  return `<label>${xmlText(label)} <select ${attributes}>${items.join('')}</select></label>`;
}

function togglesHtml(toggles: Toggle[]): string {
  if (toggles.length === 0) return '<p class="note">This run varies no dimension besides framework and routes: no toggles.</p>';
  const selects = toggles.map((t) =>
    selectHtml(
      `data-filter="${t.dimension}" data-signal="${filterSignal(t)}"`,
      t.dimension,
      [{ value: '', text: 'all' }, ...t.values.map((v) => ({ value: v, text: v }))],
      '',
    ),
  );
  return `<div class="toggles" id="toggles"><span>Show only:</span> ${selects.join(' ')}</div>`;
}

async function charts(context: ReportContext, toggles: Toggle[]): Promise<Chart[]> {
  const { summaries } = context;
  const list: Chart[] = [];
  // a curve against N only where a series has two route counts or more: no log-log chart of one point
  const curves = hasCurve(summaries);
  const first = curves ? curveData(summaries, 'firstResponse', toggles) : [];
  if (first.length) {
    const text = { title: 'Cold start to the first response vs route count', axis: 'firstResponse: ms from spawn (log scale)' };
    list.push({ id: 'firstresponse', spec: await compileSpec(curveHtmlSpec(first, text, toggles)) });
  }
  const ready = curves ? curveData(summaries, 'ready', toggles) : [];
  if (ready.length) {
    const text = {
      title: 'Cold start to ready (listen; init for a Lambda handler) vs route count',
      axis: 'ready: ms from spawn (log scale)',
    };
    list.push({ id: 'ready', spec: await compileSpec(curveHtmlSpec(ready, text, toggles)) });
  }
  const phases = phaseData(summaries, toggles);
  if (phases.length && context.phasesAt !== undefined) {
    const routes = [...new Set(phases.map((p) => p.routes))].sort((a, b) => a - b);
    const at = routes.includes(context.phasesAt) ? context.phasesAt : routes[0]!;
    const options = routes.map((n) => ({ value: String(n), text: n.toLocaleString('en-US') }));
    const controls = selectHtml(`data-signal="${PHASES_ROUTES_SIGNAL}" data-chart="phases" data-number`, 'routes', options, String(at));
    // one route count (your own app): nothing to choose
    list.push({ id: 'phases', spec: await compileSpec(phasesHtmlSpec(phases, at, toggles)), ...(routes.length > 1 ? { controls } : {}) });
  }
  const estimates = estimateData(summaries, context.calibration, toggles);
  if (estimates.length)
    list.push({ id: 'estimate', spec: await compileSpec(estimateHtmlSpec(estimates, toggles, calibratedBands(context.calibration))) });
  return list;
}

function calibrationHtml(context: ReportContext, toggles: Toggle[]): string {
  const { reference } = context;
  if (!reference || context.calibration.size === 0)
    return '<p class="note">This run has no local Lambda cell: it has no Lambda estimate and no calibration.</p>';
  const missing = [...new Set([...context.calibration.values()].flatMap((c) => (c.missing ? [c.missing] : [])))];
  // the shipped table's source names its dates; a table of the user's may not
  const dates = reference.source.includes(reference.from) ? '' : `data from ${xmlText(reference.from)} to ${xmlText(reference.to)}; `;
  return [
    `<p>Calibration: ${xmlText(reference.source)} (${dates}` +
      `hello world: <code>${xmlText(reference.handler)}</code>; ${xmlText(reference.notes)}).</p>`,
    // as summary.md: the file a run's estimates were made with (--calibration), and why not when it is gone or changed
    ...(context.calibrationFile
      ? [
          `<p>Calibration file: <code>${xmlText(oneLine(context.calibrationFile.file))}</code> ` +
            `(sha256 <code>${xmlText(oneLine(context.calibrationFile.sha256))}</code>), ` +
            'given with --calibration in place of the shipped table.</p>',
        ]
      : []),
    ...(context.calibrationNote ? [`<p class="warning">⚠ ${xmlText(context.calibrationNote)}</p>`] : []),
    ...(context.referenceWarning ? [`<p class="warning">⚠ ${xmlText(context.referenceWarning)}</p>`] : []),
    ...(context.loadWarning ? [`<p class="warning">⚠ ${xmlText(context.loadWarning)}</p>`] : []),
    ...(context.codeLoading ? [`<p>${xmlText(codeLoadingParagraph(context.codeLoading))}</p>`] : []),
    `<p class="note">${xmlText(validationNote(context.codeLoading))}</p>`,
    `<p class="note">${xmlText(TAILS_NOTE.replace(/\*\*/g, ''))}</p>`,
    estimateTable(context, toggles) ?? '',
    ...missing.map((m) => `<p class="note">No estimate: ${xmlText(m)}</p>`),
  ].join('\n');
}

function machineHtml(meta: RunMeta | undefined, counted: CellSummary[]): string {
  if (!meta) return '<p class="note">meta.json is missing: machine and environment unknown.</p>';
  const m = meta.machine;
  const load = runLoad(meta);
  const item = (term: string, value: string) => `<dt>${xmlText(term)}</dt><dd>${value}</dd>`;
  // one line: a version or command from a run folder may carry a terminal escape or a bidi override
  const t = (value: unknown) => xmlText(oneLine(String(value)));
  const versions = (record: Record<string, string>) =>
    Object.entries(record)
      .map(([name, version]) => `${t(name)} <code>${t(version)}</code>`)
      .join(', ') || 'unknown';
  const took = meta.durationMs !== undefined ? `, took ${t(duration(meta.durationMs))}` : '';
  const items = [
    item('Machine', `${t(m.os)} | ${t(m.cores)} vCPUs | ${t(m.memoryGB)} GB | ${t(m.cpu)}`),
    item('Load', load ? t(loadText(load).replace(/\*\*/g, '')) : 'not recorded (a run before the load was)'),
    item('Runtime', `${versions(meta.runtimes)} (runner: node <code>${t(meta.runner.node)}</code>)`),
    item('Run', `${t(meta.startedAt)}${took}${meta.interrupted ? ' (interrupted: partial results)' : ''}`),
    item('Command', `<code>${t(meta.command)}</code>`),
    meta.spec.source.kind === 'apps'
      ? item('Apps', meta.spec.source.apps.map((app) => `${t(app.name)} (${t(app.kind)} <code>${t(app.file)}</code>)`).join(', ') || 'none')
      : item(
          'Frameworks',
          Object.entries(meta.frameworks)
            .map(([name, f]) => `${t(name)} ${t(f.version)}`)
            .join(', ') || 'none',
        ),
  ];
  if (counted.length) items.push(item('Counted cells', `${counted.length}: their instructions are in summary.md`));
  return `<dl class="machine">${items.join('\n')}</dl>`;
}

/** Whether the page draws the first-response curve. */
function first(list: Chart[]): boolean {
  return list.some((c) => c.id === 'firstresponse');
}

/** Why the page has no curve against the route count: no sample answered, or one point per series. */
function noCurveNote(context: ReportContext, apps: boolean): string {
  if (!context.summaries.some((s) => s.ok > 0)) return '<p class="note">No successful sample in this run: no chart.</p>';
  return apps
    ? '<p class="note">One point per app: no curve to draw; the results table has its figures.</p>'
    : '<p class="note">One route count per series: no curve against the route count to draw.</p>';
}

function chartHtml(chart: Chart): string {
  const controls = chart.controls ? `<div class="controls">${chart.controls}</div>` : '';
  return `<figure class="chart">${controls}<div id="chart-${chart.id}" data-chart="${chart.id}"></div></figure>`;
}

/**
 * The frameworks this run does not show, and why: skipped before it started (meta.json's `skipped`:
 * packages not installed, a target a framework lacks), and those whose every sample failed (the
 * first reason of their first cell). Said near the top, so a reader does not look for them in the charts.
 */
export function missingHtml(meta: RunMeta | undefined, summaries: readonly CellSummary[]): string {
  // names and reasons from meta.json and the samples: one line, no control or bidi character, escaped
  const text = (value: string) => xmlText(oneLine(value));
  const skipped = Object.entries(meta?.skipped ?? {}).map(([name, reason]) => `${text(name)} (${text(reason)})`);
  const byFramework = new Map<string, CellSummary[]>();
  for (const s of summaries) byFramework.set(s.cell.framework, [...(byFramework.get(s.cell.framework) ?? []), s]);
  const failed = [...byFramework]
    .filter(([, cells]) => cells.every((c) => c.ok === 0 && c.failed > 0))
    .map(([name, cells]) => `${text(name)} (${text(cells[0]!.errors[0]?.reason ?? 'failed')})`);
  const parts = [
    skipped.length ? `Skipped, not measured: ${skipped.join('; ')}.` : 'No framework was skipped.',
    ...(failed.length ? [`Failed in every sample, so absent from the charts: ${failed.join('; ')}.`] : []),
  ];
  return `<p class="note skipped">${parts.join(' ')}</p>`;
}

/** The page of a run folder's report (async: the specs are compiled by vega-lite, loaded on first use). */
export async function htmlReport(context: ReportContext): Promise<string> {
  const toggles = togglesOf(context.summaries);
  const list = await charts(context, toggles);
  const vega = vegaBundle();
  const apps = appsRun(context.meta);
  const what = apps ? 'Cold start of your app' : 'Cold start by route count';
  const title = `${what}${context.meta ? ` (${context.meta.startedAt})` : ''}`;
  const data = { charts: list.map((c) => ({ id: c.id, spec: c.spec })), toggles };
  return `${[
    ...pageHead(CSP, xmlText(title)),
    `<h1>${xmlText(title)}</h1>`,
    '<p class="note">Medians over fresh processes, in ms from the runner’s spawn call; the same report as ' +
      '<a href="summary.md">summary.md</a>, with charts to hover and tables to sort. Quote medians with their spread.</p>',
    howToReadHtml(context),
    warningsHtml(context),
    // the user's own apps: nothing generated to skip, no route count; a toggle only where a dimension varies
    ...(apps && Object.keys(context.meta?.skipped ?? {}).length === 0 ? [] : [missingHtml(context.meta, context.summaries)]),
    ...(apps && toggles.length === 0 ? [] : [togglesHtml(toggles)]),
    // the answers first (issue 51): the curve (cost of a route) and the $ per million with its interval,
    // then the charts, and the long table of every cell after them
    ...(apps
      ? []
      : [
          '<h2 id="scaling">Scaling with routes</h2>',
          '<p class="note">The cost of one more route (ms per route) from the curve the samples support, on first response and on ' +
            'ready (listen; a Lambda handler: init), with 95 % bootstrap intervals; how the model is chosen: ' +
            '<a href="scaling.md">scaling.md</a>.</p>',
          curveHtmlTable(context),
        ]),
    costHtml(context, toggles),
    // lambda-web cells: INIT against the 10 s limit (nothing for other runs: their pages stay as they were)
    ...[webFunctionsHtml(context)].filter((html) => html !== ''),
    // no chart to draw is no failure: the note says why, without an empty Charts section
    ...(list.length ? ['<h2 id="charts">Charts</h2>', ...list.map(chartHtml)] : []),
    ...(first(list) ? [] : [noCurveNote(context, apps)]),
    '<h2>Results</h2>',
    '<p class="note">One row per cell; click a header to sort. ⚠: the slowest sample took more than 1.5 × the fastest.</p>',
    resultsTable(context.summaries, toggles, apps),
    ...(apps ? [] : ['<p class="note">The straight line through the medians (µs per route):</p>', fitsTable(context.summaries)]),
    '<h2>Lambda: the estimate and its calibration</h2>',
    calibrationHtml(context, toggles),
    '<h2>Machine</h2>',
    machineHtml(context.meta, context.counted),
    `<p class="note">Written by coldstart${context.meta ? ` ${xmlText(context.meta.toolVersion)}` : ''} from samples.jsonl and ` +
      `meta.json; charts drawn by vega ${xmlText(vega.version)}, carried inline: this page works offline.</p>`,
    '<div id="tooltip" role="tooltip" hidden></div>',
    `<script type="application/json" id="coldstart-data">${scriptJson(data)}</script>`,
    `<script>\n${vega.code}\n</script>`,
    `<script>\n${pageAsset('table-sort.js')}</script>`,
    `<script>\n${pageAsset('report-page.js')}</script>`,
    '</body>',
    '</html>',
  ].join('\n')}\n`;
}
