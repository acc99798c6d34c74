/**
 * report.html's tables, written as HTML here (they read without JavaScript): the results per cell,
 * the scaling fits and the Lambda estimate. A numeric cell carries its value in `data-sort`, so the
 * page's script sorts by number, not by text; a row carries the toggled dimensions of its cell
 * (`data-filter-<dimension>`), so the toggles hide rows as they hide points. Every text is escaped.
 */
import { FROM_START_METRICS, type CellSummary, type Stats } from '../analyse/aggregate.ts';
import { readyMark, scalingFits, seriesOf } from '../analyse/scaling.ts';
import { cellKey, cellLabel } from '../core/cell.ts';
import { xmlText } from '../core/escape.ts';
import { ms, round3 } from '../core/format.ts';
import type { ReportContext } from './contract.ts';
import { additionText, dimensionFields, rangeText, type Toggle } from './html-data.ts';
import { tailCells } from './init-tails.ts';
import { withheldTermReason } from './code-loading.ts';
import type { CodeLoadingTerm } from '../analyse/code-loading.ts';
import {
  estimateCost,
  estimateCostText,
  estimateIntervalText,
  evidenceText,
  extrapolatedMark,
  hasRunning,
  intervalText,
  runningTermText,
} from './calibration.ts';
import { priceOf } from '../analyse/cost.ts';
import { growthText } from './scaling-md.ts';
import { MARGINAL_AT } from '../analyse/curve.ts';
import { budgetText, growthCell, marginalText, modelText, reportCurves } from './curve-md.ts';
import { ciNarrowerThanRange } from './markdown.ts';

/** A table cell: its text, and its number when it sorts as one. */
export interface TableCell {
  text: string;
  sort?: number;
  /** links shown instead of the text (href: a relative path, already encoded) */
  links?: { href: string; text: string }[];
}

export interface TableRow {
  cells: TableCell[];
  /** the toggled dimensions of the row's cell */
  filters?: Record<string, string>;
}

const num = (value: number | undefined, text = ms(value)): TableCell => {
  const sort = round3(value);
  return sort === '' ? { text } : { text, sort };
};

const txt = (text: string): TableCell => ({ text });

/** ok/samples; a cell with no sample at all (not run, or unsupported) is no failure: "no sample", not 0/0. */
export const samplesCell = (s: { ok: number; failed: number }): TableCell =>
  s.ok + s.failed === 0 ? txt('no sample') : num(s.ok, `${s.ok}/${s.ok + s.failed}`);

/** The code-loading term's cell: its figure, or "withheld" with why when it is negative (report/code-loading.ts). */
const codeLoadingCell = (term: CodeLoadingTerm | undefined): TableCell => {
  const withheld = term && withheldTermReason(term);
  return withheld ? txt(`withheld: ${withheld}`) : num(term?.ms);
};

/** The attribute that holds a toggled dimension on a row (attribute names are lower case). */
export function filterAttribute(dimension: string): string {
  return `data-filter-${dimension.toLowerCase()}`;
}

function cellHtml(cell: TableCell): string {
  if (cell.links) return `<td>${cell.links.map((l) => `<a href="${xmlText(l.href)}">${xmlText(l.text)}</a>`).join(' ')}</td>`;
  return cell.sort === undefined ? `<td>${xmlText(cell.text)}</td>` : `<td class="num" data-sort="${cell.sort}">${xmlText(cell.text)}</td>`;
}

/** A sortable table: click a header to sort by it (numbers by value), again to reverse. */
export function tableHtml(id: string, headers: string[], rows: TableRow[]): string {
  const head = headers.map((h) => `<th scope="col" tabindex="0">${xmlText(h)}</th>`).join('');
  const body = rows.map((row) => {
    const attributes = Object.entries(row.filters ?? {})
      .map(([d, v]) => ` ${filterAttribute(d)}="${xmlText(v)}"`)
      .join('');
    const cells = row.cells.map(cellHtml).join('');
    return `<tr${attributes}>${cells}</tr>`;
  });
  return [`<table class="sortable" id="${id}">`, `<thead><tr>${head}</tr></thead>`, '<tbody>', ...body, '</tbody>', '</table>'].join('\n');
}

function medianCell(stats: Stats | undefined): TableCell {
  return num(stats?.median, stats ? `${ms(stats.median)}${stats.wide ? ' ⚠' : ''}` : '–');
}

/** One row per timed cell: its series and routes, the medians, the CI and the spread, the samples that answered. */
export function resultsTable(summaries: CellSummary[], toggles: Toggle[], apps = false): string {
  // startup and listen from the child's first statement (the seed's clock), in runs that have the mark
  const fromStart = summaries.some((s) => s.fromStart);
  // the CI column only when it says more than fastest–slowest: with 5 samples or fewer they are the same (report/markdown.ts)
  const ci = summaries.some((s) => ciNarrowerThanRange(s.metrics.firstResponse));
  const rows = seriesOf(summaries).flatMap((series) =>
    series.cells.map((s) => {
      const first = s.metrics.firstResponse;
      return {
        filters: dimensionFields(s, toggles),
        cells: [
          txt(series.label),
          // the user's own apps (measure) have no route count
          ...(apps ? [] : [num(s.cell.routes, String(s.cell.routes))]),
          medianCell(s.metrics.startup),
          medianCell(s.metrics[readyMark(s)]),
          ...(fromStart ? FROM_START_METRICS.map((m) => medianCell(s.fromStart?.[m])) : []),
          medianCell(first),
          ...(ci ? [txt(first?.ci95 ? rangeText(first.ci95.low, first.ci95.high) : '–')] : []),
          txt(first ? rangeText(first.min, first.max) : '–'),
          samplesCell(s),
        ],
      };
    }),
  );
  const headers = [
    apps ? 'app' : 'series',
    ...(apps ? [] : ['routes']),
    'startup (ms)',
    'ready (ms)',
    ...(fromStart ? FROM_START_METRICS.map((m) => `${m} from start (ms)`) : []),
    'firstResponse (ms)',
    ...(ci ? ['firstResponse 95% CI'] : []),
    'fastest–slowest',
    'ok/samples',
  ];
  return tableHtml('results', headers, rows);
}

/** The per-route cost as a fitted curve, a row per series and metric (ms per route, as scaling.md's curve tables). */
export function curveHtmlTable(context: Pick<ReportContext, 'summaries' | 'budgetMs'>): string {
  const curves = reportCurves(context);
  const budget = context.budgetMs;
  const rows = curves.map((f) => ({
    cells: [
      txt(f.series.label),
      txt(f.metric === 'firstResponse' ? 'first response' : `ready (${f.mark})`),
      txt(modelText(f.model)),
      txt(growthCell(f)),
      ...MARGINAL_AT.map((n) => {
        const m = f.marginal.find((x) => x.routes === n);
        return f.model && m?.inRange ? num(m.value, marginalText(f, n)) : txt(f.model ? marginalText(f, n) : '–');
      }),
      ...(budget !== undefined ? [num(f.budget?.routes, budgetText(f))] : []),
    ],
  }));
  const headers = [
    'series',
    'metric',
    'model (AICc)',
    'growth',
    ...MARGINAL_AT.map((n) => `ms/route at ${n.toLocaleString('en-US')} routes (95 % CI)`),
    ...(budget !== undefined ? [`routes within ${budget.toLocaleString('en-US')} ms (95 % CI)`] : []),
  ];
  return tableHtml('curves', headers, rows);
}

/** The linear fits per series, as scaling.md has them. */
export function fitsTable(summaries: CellSummary[]): string {
  const rows = scalingFits(summaries).map((f) => ({
    cells: [
      txt(f.series.label),
      txt(f.mark ?? f.metric),
      num(new Set(f.points.map(([n]) => n)).size, String(new Set(f.points.map(([n]) => n)).size)),
      num(f.fit?.fixedMs),
      num(f.fit ? f.fit.perRouteMs * 1000 : undefined),
      num(f.fit?.r2, f.fit ? f.fit.r2.toFixed(3) : '–'),
      num(f.growth?.logLogSlope, f.growth?.logLogSlope !== undefined ? f.growth.logLogSlope.toFixed(2) : '–'),
      txt(growthText(f).replace(/\*\*/g, '')),
    ],
  }));
  const headers = ['series', 'metric', 'N values', 'fixed (ms)', 'per route (µs/route)', 'R²', 'log-log slope (N ≥ 10)', 'growth'];
  return tableHtml('fits', headers, rows);
}

/** Per local Lambda cell with an estimate: measured here, what Lambda adds, the estimate (as summary.md's calibration table). */
export function estimateTable(context: ReportContext, toggles: Toggle[]): string | undefined {
  // INIT's running part (issue 41), only when some estimate split INIT: an older run's table stays as it was
  const running = hasRunning(context);
  // a row per architecture the report estimates (--arch x86_64,arm64), in the order asked
  const rows = context.summaries.flatMap((s) =>
    context.calibrations.flatMap(({ architecture, calibration }) => {
      const c = calibration.get(cellKey(s.cell));
      if (!c) return [];
      const cost = estimateCost(context, s, c, priceOf(context.cost, architecture));
      return [
        {
          filters: dimensionFields(s, toggles),
          cells: [
            txt(cellLabel(s.cell)),
            txt(`${c.runtime} ${c.architecture} ${c.memoryMB} MB`),
            num(c.init?.measured ?? s.lambda?.initMs.median),
            txt(additionText(c.init?.addition)),
            ...(context.codeLoading ? [codeLoadingCell(c.init?.codeLoading)] : []),
            ...(running ? [num(c.init?.running?.onLambdaMs, runningTermText(c.init?.running))] : []),
            num(c.init?.estimate),
            txt(estimateIntervalText(c, c.init?.interval)),
            txt(tailCells(c).init),
            num(c.duration?.measured ?? s.lambda?.durationMs.median),
            num(c.duration?.estimate),
            // Duration's interval is its samples' (it does not rest on the code-loading term): shown beyond the evidence too
            txt(intervalText(c.duration?.interval)),
            txt(tailCells(c).duration),
            num(c.billedEstimate, c.billedEstimate === undefined ? '–' : String(c.billedEstimate)),
            txt(extrapolatedMark(c) || (c.billedInterval ? `${c.billedInterval.low}–${c.billedInterval.high}` : '–')),
            num(cost?.perMillion, estimateCostText(cost, c)),
            txt(evidenceText(c)),
          ],
        },
      ];
    }),
  );
  if (rows.length === 0) return undefined;
  const headers = [
    'cell',
    'as on Lambda',
    'Init measured here',
    'Init: Lambda adds',
    ...(context.codeLoading ? ['Init: code loading'] : []),
    ...(running ? ["Init: running (× Lambda's CPU)"] : []),
    'Init estimate',
    'Init interval',
    'Init p95 / p99',
    'Duration measured here',
    'Duration estimate',
    'Duration interval',
    'Duration p95 / p99',
    'Billed estimate',
    'Billed interval',
    '$ per million cold starts (interval)',
    'evidence',
  ];
  return tableHtml('estimates', headers, rows);
}
