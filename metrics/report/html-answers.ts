/**
 * report.html's answers beside its charts: a short "how to read this" at the top, the run's warnings
 * (what summary.md and the terminal warn: a busy machine, an interrupted run, a runtime past its end
 * of life, an old calibration, failed samples, outliers) and the cost table, labelled as what it is:
 * a modelled figure, with its formula, its source and, for an estimate, its interval and evidence.
 * The figures and the paragraphs are summary.md's (cost-table.ts), so the two never disagree.
 */
import type { CellSummary } from '../analyse/aggregate.ts';
import { cellCost } from '../analyse/cost.ts';
import { seriesOf } from '../analyse/scaling.ts';
import { pastEndOfLife } from '../core/end-of-life.ts';
import { oneLine, xmlText } from '../core/escape.ts';
import { dollars, ms, round3 } from '../core/format.ts';
import { calibrationOf, estimateCost, evidenceText, extrapolatedMark } from './calibration.ts';
import type { ReportContext } from './contract.ts';
import { costParagraphs, costTitle } from './cost-table.ts';
import { dimensionFields, type Toggle } from './html-data.ts';
import { tableHtml, type TableCell, type TableRow } from './html-tables.ts';
import { appsRun, runLoad } from './markdown.ts';
import { targetKind } from '../core/kinds.ts';
import { WEB_COST_NOTE } from './cost-table.ts';

/**
 * The one line a run without Lambda cells gives (terminal and report) on how to get the Lambda answer:
 * the default run measures servers only (why: docs/guide/running.md, "The default run"). It names the
 * command as the run was launched (its recorded command: `npx coldstart …` in an app, `npm run …` in a
 * checkout), so the hint runs where the run did.
 */
function lambdaHintText(npx: boolean): string {
  const run = npx ? 'npx coldstart metrics' : 'npm run metrics --';
  return (
    'No Lambda cell in this run: for the Lambda answer (the Init estimate on Lambda and its $ per million cold starts, ' +
    `calibrated on real cold starts) run \`${run} --target server,lambda --frameworks fastify,hono --routes 1,1000\`.`
  );
}

/** The same for `measure`: the user's Lambda handler, measured as Lambda runs it. */
function lambdaHintAppsText(npx: boolean): string {
  const measure = npx ? 'npx coldstart measure' : 'npm run measure --';
  const command = `${measure} --handler src/index.handler --event event.json`;
  return `No Lambda handler in this run: for the Lambda answer measure the handler itself: \`${command}\`.`;
}

/** The hint for a run with no Lambda-shaped cell (none for an import of AWS's own figures). */
export function lambdaHint(context: Pick<ReportContext, 'summaries' | 'meta'>): string | undefined {
  if (context.summaries.some((s) => targetKind(s.cell.target).lambdaShaped)) return undefined;
  if (context.meta?.spec.source.kind === 'imported') return undefined;
  const npx = context.meta?.command.startsWith('npx coldstart ') === true;
  return appsRun(context.meta) ? lambdaHintAppsText(npx) : lambdaHintText(npx);
}

/** summary.md's inline markdown as HTML: escaped, then `code`, **strong** and a paragraph in _emphasis_. */
export function inlineMarkdownHtml(text: string): string {
  const html = xmlText(text)
    .replace(/`([^`]+)`/g, '<code>$1</code>')
    .replace(/\*\*([^*]+)\*\*/g, '<strong>$1</strong>');
  return /^_.*_$/s.test(html) ? `<em>${html.slice(1, -1)}</em>` : html;
}

/** A cell's cost as the cost table shows it: the figure priced, its $ and, for an estimate, the interval and evidence. */
interface CostRow {
  basis: string;
  pricedMs: number | undefined;
  memoryMB: number;
  perMillion: number | undefined;
  interval: string;
  evidence: string;
}

function costRow(context: ReportContext, s: CellSummary): CostRow | undefined {
  const c = calibrationOf(context, s);
  if (c?.billedEstimate !== undefined) {
    const cost = estimateCost(context, s, c, context.cost.pricePerGBs);
    return {
      basis: 'Billed Duration estimate on Lambda',
      pricedMs: c.billedEstimate,
      memoryMB: c.memoryMB,
      perMillion: cost?.perMillion,
      // beyond its evidence an estimate has no interval: the mark stands in its place
      interval:
        extrapolatedMark(c) || (cost?.low !== undefined && cost.high !== undefined ? `${dollars(cost.low)}–${dollars(cost.high)}` : '–'),
      evidence: evidenceText(c),
    };
  }
  const cost = cellCost(s, context.cost, undefined);
  if (!cost) return undefined;
  const imported = !targetKind(s.cell.target).local;
  return {
    basis:
      cost.basis === 'billed'
        ? `Billed Duration median${imported ? ' (AWS REPORT lines)' : ', measured here'}`
        : 'firstResponse median, measured here',
    pricedMs: cost.basis === 'billed' ? s.lambda?.billedMs.median : s.metrics.firstResponse?.median,
    memoryMB: cost.memoryMB,
    perMillion: cost.perMillion,
    interval: '–',
    evidence: imported ? "AWS Lambda's own figures" : 'a local timing: a scale, not a bill',
  };
}

const text = (value: string): TableCell => ({ text: value });

/** A number's cell: its text, sorted by its value (to 3 decimals, as the page's other tables). */
function numeric(value: number | undefined, shown: string): TableCell {
  const sort = round3(value);
  return sort === '' ? { text: shown } : { text: shown, sort };
}

/** The cost section: what the figure is, a row per cell (sortable, toggled like the results table), the formula and notes. */
export function costHtml(context: ReportContext, toggles: Toggle[]): string {
  const apps = appsRun(context.meta);
  const rows: TableRow[] = seriesOf(context.summaries).flatMap((series) =>
    series.cells.flatMap((s) => {
      const row = costRow(context, s);
      if (!row || s.unsupported) return [];
      return [
        {
          filters: dimensionFields(s, toggles),
          cells: [
            text(series.label),
            ...(apps ? [] : [numeric(s.cell.routes, String(s.cell.routes))]),
            text(row.basis),
            numeric(row.pricedMs, ms(row.pricedMs)),
            numeric(row.memoryMB, String(row.memoryMB)),
            numeric(row.perMillion, dollars(row.perMillion)),
            text(row.interval),
            text(row.evidence),
          ],
        },
      ];
    }),
  );
  const headers = [
    apps ? 'app' : 'series',
    ...(apps ? [] : ['routes']),
    'priced on',
    'ms priced',
    'memory (MB)',
    '$ per million cold starts',
    '$ interval',
    'evidence',
  ];
  const estimated = context.summaries.some((s) => calibrationOf(context, s)?.billedEstimate !== undefined);
  const label =
    'A modelled figure, not a bill: each cell’s cold start priced at AWS Lambda’s on-demand rate for the memory size' +
    (estimated
      ? `; a local Lambda cell by its calibrated estimate (real cold starts from ${context.reference?.from} ` +
        `to ${context.reference?.to}), with the estimate’s interval and evidence`
      : '') +
    '. The formula and what the figures are below the table; the same figures as summary.md’s cost section.';
  const hint = lambdaHint(context);
  return [
    `<h2 id="cost">${xmlText(costTitle(context))}</h2>`,
    `<p class="note">${xmlText(label)}</p>`,
    rows.length ? tableHtml('cost-table', headers, rows) : `<p class="note">${xmlText(noCostRows(context))}</p>`,
    ...costParagraphs(context).map((p) => `<p class="note">${inlineMarkdownHtml(p)}</p>`),
    ...(hint ? [`<p class="hint" id="lambda-hint">${inlineMarkdownHtml(hint)}</p>`] : []),
  ].join('\n');
}

/** Why the cost table has no row: no cell answered, or every cell is a Web Function (priced in its own section). */
function noCostRows(context: ReportContext): string {
  return context.summaries.some((s) => targetKind(s.cell.target).caps && s.ok > 0) ? WEB_COST_NOTE : 'No cell answered: nothing to price.';
}

/** Every warning of the run, one line each (text, not HTML); the outliers apart, as they can be one per cell. */
export function runWarnings(context: ReportContext): { lines: string[]; outliers: string[] } {
  const { meta, summaries } = context;
  const lines: string[] = [];
  if (meta?.interrupted) lines.push('The run was interrupted: these are partial results (the samples that finished).');
  const busy = runLoad(meta)?.warning;
  if (busy) lines.push(busy);
  for (const [name, version] of Object.entries(meta?.runtimes ?? {})) {
    const eol = meta ? pastEndOfLife(version, new Date(meta.startedAt)) : undefined;
    if (eol) lines.push(`${oneLine(name)} ${oneLine(version)} was past its end of life (${eol}) when this ran: measure a supported line.`);
  }
  if (context.referenceWarning) lines.push(context.referenceWarning);
  const failed = summaries.reduce((n, s) => n + (s.unsupported ? 0 : s.failed), 0);
  if (failed > 0) {
    const cells = summaries.filter((s) => !s.unsupported && s.failed > 0).length;
    lines.push(`${failed} sample(s) failed in ${cells} of ${summaries.length} cells: their reasons are in summary.md (Failures).`);
  }
  return { lines, outliers: context.warnings };
}

/** The warnings block near the top: each line, and the outliers as one line with the list folded under it. */
export function warningsHtml(context: ReportContext): string {
  const { lines, outliers } = runWarnings(context);
  const measured = context.summaries.filter((s) => !s.unsupported).length;
  const items = lines.map((line) => `<li>⚠ ${xmlText(line)}</li>`);
  if (outliers.length) {
    const list = outliers.map((line) => `<li>${xmlText(line)}</li>`).join('');
    items.push(
      `<li>⚠ <details><summary>Outliers (MAD test) in ${outliers.length} of ${measured} cells: medians resist them; ` +
        `rerun with more samples if they matter.</summary><ul>${list}</ul></details></li>`,
    );
  }
  if (items.length === 0) {
    const none = '<p class="note">None: a quiet machine, every sample answered, no outlier.</p>';
    return `<section id="warnings"><h2>Warnings</h2>${none}</section>`;
  }
  return `<section id="warnings" class="warnings"><h2>Warnings</h2><ul>${items.join('\n')}</ul></section>`;
}

/** "How to read this": what a figure is, where each question is answered, and what the marks mean. */
export function howToReadHtml(context: ReportContext): string {
  const apps = appsRun(context.meta);
  const lambda = context.summaries.some((s) => targetKind(s.cell.target).lambdaShaped);
  const items = [
    apps
      ? 'Each figure is a median over fresh processes of your app, in ms from the runner’s spawn call; ' +
        '<strong>firstResponse</strong> (the first verified answer to the request) is the cold start a user waits for.'
      : 'Each figure is a median over fresh processes, in ms from the runner’s spawn call; <strong>firstResponse</strong> ' +
        '(the first verified answer of the LAST route) is the honest cold start: some frameworks defer work to the first request.',
    ...(apps
      ? []
      : [
          '<strong>How does it grow with routes?</strong> The <a href="#charts">charts</a> (log axes) and ' +
            '<a href="#scaling">Scaling with routes</a>: what one more route adds, at 100, 1,000 and 5,000 routes.',
        ]),
    '<strong>What will it cost?</strong> <a href="#cost">Cost</a>: $ per million cold starts, a modelled figure ' +
      (lambda
        ? '(Lambda cells by their Billed Duration or its calibrated estimate on Lambda, with its interval).'
        : '(local times priced at Lambda’s rate: a scale, not a bill; the section says how to get the Lambda answer).'),
    '⚠ beside a median: its slowest sample took more than 1.5 × its fastest; read it as noisy. ' +
      '<a href="#warnings">Warnings</a> lists what may make a figure wrong.',
    `Milliseconds do not travel between machines; ratios (${apps ? 'to a base run of your app' : 'between frameworks'}) ` +
      'and CPU times do.',
  ];
  return `<section id="how-to-read"><h2>How to read this</h2><ul>${items.map((i) => `<li>${i}</li>`).join('\n')}</ul></section>`;
}
