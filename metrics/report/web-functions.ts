/**
 * Lambda Web Functions in the report (cells of the lambda-web target): each cell's INIT, spawn → its
 * address accepting a connection (what Lambda waits for), its median and p95 against the 10 s a server
 * has to listen, the gap between that and the server's own ready mark, and what one cold start uses:
 * active CPU seconds (the child's CPU time at its listen mark) and GB-seconds (INIT's wall time × 2 GB); and
 * the estimate of Lambda's INIT: this machine's median × Lambda arm64's CPU time for the CPU reference's loop
 * over this machine's (the ratio the handler estimate's CPU terms use). No real Web Functions cold start
 * calibrates that estimate yet, so it carries the mark ✱ and no interval (an interval's coverage cannot be
 * checked against nothing); lambda:import of platform.initReport lines and compare put real ones beside it.
 * No $: Web Functions' rates are not public.
 */
import { quantileSorted } from 'simple-statistics';
import type { CellSummary } from '../analyse/aggregate.ts';
import { webColdStartCost } from '../analyse/web-cost.ts';
import { cellLabel } from '../core/cell.ts';
import { markdownTable, ms, round3 } from '../core/format.ts';
import { markdownCode, oneLine, xmlText } from '../core/escape.ts';
import { targetKind } from '../core/kinds.ts';
import type { CsvColumn, MarkdownSection, Output, ReportContext } from './contract.ts';
import { cpuSpeedsOf, lambdaCpuPerIteration, localCpuPerIteration, CPU_REFERENCE } from '../calibration/lambda-cpu-reference.ts';
import { isWebLimitReason, WEB_FUNCTION_ARCHITECTURE, type WebRates } from '../core/web-platform.ts';
import { WEB_FUNCTION_RUNTIME } from '../core/lambda-platform.ts';
import type { LocalCpuSpeed } from '../core/meta.ts';

/** A Web Function cell's figures against its platform's limit on INIT. */
export interface WebInitRow {
  summary: CellSummary;
  limitMs: number;
  p50: number;
  p95: number;
  /** limit − p50 and limit − p95, ms (negative: over) */
  marginP50Ms: number;
  marginP95Ms: number;
  /** samples that failed on the limit */
  overLimit: number;
  acceptGapMs?: number;
  cpuSeconds?: number;
  gbSeconds: number;
  /** $ of one cold start at the user's rates (CPU-s × rate + GB-s × rate + request); absent without them */
  dollars?: number;
  /** Lambda's INIT estimated from this machine's median (✱: no real Web Functions data calibrates it), ms */
  estimateMs?: number;
}

/** Lambda arm64's CPU time for the reference loop over this machine's on the cell's runtime, or undefined without a timing. */
export function webCpuRatio(runtime: string, speeds: Readonly<Record<string, LocalCpuSpeed>>): number | undefined {
  const speed = speeds[runtime];
  const lambda = lambdaCpuPerIteration(runtime, WEB_FUNCTION_ARCHITECTURE);
  if (!speed || !lambda) return undefined;
  return lambda.msPerIteration / localCpuPerIteration(speed);
}

const limitOf = (s: CellSummary) => targetKind(s.cell.target).readyLimitMs;

/** The Web Function cells with a successful sample, as rows; a cell every sample of which failed is in Failures. */
export function webInitRows(
  summaries: readonly CellSummary[],
  speeds: Readonly<Record<string, LocalCpuSpeed>> = {},
  rates?: WebRates,
): WebInitRow[] {
  return summaries.flatMap((summary) => {
    const limitMs = limitOf(summary);
    const listen = summary.metrics.listen;
    if (limitMs === undefined || !listen || listen.n === 0) return [];
    const p50 = listen.median;
    const p95 = quantileSorted(
      [...listen.values].sort((a, b) => a - b),
      0.95,
    );
    const cpuMs = summary.cpu?.listen?.median;
    const use = webColdStartCost({ cpuMs: cpuMs ?? 0, initMs: p50 }, cpuMs === undefined ? undefined : rates);
    const overLimit = summary.errors.filter((e) => isWebLimitReason(e.reason)).reduce((n, e) => n + e.count, 0);
    return [
      {
        summary,
        limitMs,
        p50,
        p95,
        marginP50Ms: limitMs - p50,
        marginP95Ms: limitMs - p95,
        overLimit,
        ...(summary.acceptGapMs ? { acceptGapMs: summary.acceptGapMs.median } : {}),
        ...(cpuMs !== undefined ? { cpuSeconds: use.cpuSeconds } : {}),
        gbSeconds: use.gbSeconds,
        ...(use.dollars !== undefined ? { dollars: use.dollars } : {}),
        ...estimateOf(summary, p50, speeds),
      },
    ];
  });
}

function estimateOf(summary: CellSummary, p50: number, speeds: Readonly<Record<string, LocalCpuSpeed>>): { estimateMs?: number } {
  const ratio = webCpuRatio(summary.cell.runtime, speeds);
  return ratio === undefined ? {} : { estimateMs: p50 * ratio };
}

const NOTE =
  'INIT is spawn → the address in AWS_LAMBDA_HTTP_ENDPOINT accepting a connection, probed from outside as Lambda waits ' +
  'for it (every 10 ms, every 1 ms once the server says it listens; its own listen mark is the gap column: accepted − ' +
  'own mark); a server has 10 s ' +
  '(web-functions-env-lifecycle), so the margin is 10 s − the median and 10 s − the p95, on this machine. Each sample ' +
  'ran capped at 2 vCPUs and 2 GB (cgroups, where the machine allows) on nodejs24.x. A cold start uses the active CPU ' +
  'seconds (the CPU time at the listen mark) and the GB-seconds (INIT × 2 GB); its $ is CPU-s × your CPU rate + GB-s × ' +
  "your GB-s rate + your request rate, only with your rates (--price-file or --web-*-price): Web Functions' rates are not public.";

/** The footnote of the estimate column: its model, its source and date, and why it has no interval. */
function estimateNote(): string {
  const row = lambdaCpuPerIteration(WEB_FUNCTION_RUNTIME, WEB_FUNCTION_ARCHITECTURE)?.row;
  const from = row ? `${row.runtime} ${row.architecture} at ${row.memoryMB} MB` : 'arm64';
  return (
    `✱ Estimate on Lambda: this machine's INIT median × Lambda ${from}'s CPU time for the same SHA-256 loop over ` +
    `this machine's (${CPU_REFERENCE.source}, ${CPU_REFERENCE.date}), timed at the run's start and end. A model beyond ` +
    "its evidence: no real Web Functions cold start calibrates it (file reads, the runtime's own start and the " +
    "platform's wait are not CPU-bound), so it has no interval; `lambda:import` of their platform.initReport lines and " +
    '`compare` put real ones beside it.'
  );
}

/** The section's table as text: its headers and, per cell, its label and figures (escaped by each format). */
function tableOf(rows: readonly WebInitRow[]): { headers: string[]; cells: { label: string; values: string[] }[] } {
  const signed = (v: number) => (v < 0 ? `−${ms(-v)}` : ms(v));
  const estimated = rows.some((r) => r.estimateMs !== undefined);
  const priced = rows.some((r) => r.dollars !== undefined);
  const headers = [
    'cell',
    'INIT median (ms)',
    'INIT p95 (ms)',
    'margin to 10 s, median / p95 (ms)',
    'accepted − own mark (ms)',
    'over 10 s',
    'active CPU-s',
    'GB-s',
    ...(estimated ? ['estimate on Lambda ✱ (ms)'] : []),
    ...(priced ? ['$ per million cold starts (your rates)'] : []),
  ];
  const cells = rows.map((r) => ({
    label: cellLabel(r.summary.cell),
    values: [
      ms(r.p50),
      ms(r.p95),
      `${signed(r.marginP50Ms)} / ${signed(r.marginP95Ms)}`,
      r.acceptGapMs === undefined ? '–' : r.acceptGapMs.toFixed(1),
      String(r.overLimit),
      r.cpuSeconds === undefined ? '–' : r.cpuSeconds.toFixed(3),
      r.gbSeconds.toFixed(3),
      ...(estimated ? [r.estimateMs === undefined ? '–' : `${ms(r.estimateMs)} ✱`] : []),
      ...(priced ? [r.dollars === undefined ? '–' : (r.dollars * 1e6).toFixed(2)] : []),
    ],
  }));
  return { headers, cells };
}

const TITLE = 'Lambda Web Functions: INIT against the 10 s limit';

function rowsOf(context: ReportContext): WebInitRow[] {
  return webInitRows(context.summaries, cpuSpeedsOf(context.meta?.lambda), context.cost.webRates);
}

function section(context: ReportContext): MarkdownSection | undefined {
  const rows = rowsOf(context);
  if (rows.length === 0) return undefined;
  const { headers, cells } = tableOf(rows);
  const table = markdownTable(
    headers,
    cells.map((c) => [markdownCode(c.label), ...c.values]),
    ['left', ...Array<'right'>(headers.length - 1).fill('right')],
  );
  const estimated = rows.some((r) => r.estimateMs !== undefined);
  return { title: TITLE, body: [NOTE, '', table, ...(estimated ? ['', estimateNote()] : [])].join('\n') };
}

/** The same section in report.html (empty for runs without lambda-web cells). */
export function webFunctionsHtml(context: ReportContext): string {
  const rows = rowsOf(context);
  if (rows.length === 0) return '';
  const { headers, cells } = tableOf(rows);
  const text = (t: string) => xmlText(oneLine(t));
  const note = (t: string) => `<p class="note">${text(t.replace(/`/g, ''))}</p>`;
  const head = `<tr>${headers.map((h) => `<th>${text(h)}</th>`).join('')}</tr>`;
  const body = cells.map(
    (c) => `<tr><td><code>${text(c.label)}</code></td>${c.values.map((v) => `<td class="num">${text(v)}</td>`).join('')}</tr>`,
  );
  return [
    `<h2 id="web-functions">${text(TITLE)}</h2>`,
    note(NOTE),
    `<table class="sortable"><thead>${head}</thead><tbody>${body.join('')}</tbody></table>`,
    ...(rows.some((r) => r.estimateMs !== undefined) ? [note(estimateNote())] : []),
  ].join('\n');
}

function csvColumns(context: ReportContext): CsvColumn[] {
  const rows = new Map(rowsOf(context).map((r) => [r.summary, r]));
  if (rows.size === 0) return [];
  const pick = (f: (r: WebInitRow) => number | undefined) => (s: CellSummary) => {
    const row = rows.get(s);
    const value = row ? f(row) : undefined;
    return value === undefined ? '' : round3(value);
  };
  return [
    { header: 'web_init_p95_ms', value: pick((r) => r.p95) },
    { header: 'web_init_limit_margin_median_ms', value: pick((r) => r.marginP50Ms) },
    { header: 'web_init_limit_margin_p95_ms', value: pick((r) => r.marginP95Ms) },
    { header: 'web_accept_gap_median_ms', value: pick((r) => r.acceptGapMs) },
    { header: 'web_active_cpu_s', value: pick((r) => r.cpuSeconds) },
    { header: 'web_gb_s', value: pick((r) => r.gbSeconds) },
    { header: 'web_init_estimate_unvalidated_ms', value: pick((r) => r.estimateMs) },
    { header: 'web_usd_per_million_at_your_rates', value: pick((r) => (r.dollars === undefined ? undefined : r.dollars * 1e6)) },
  ];
}

/** The Web Functions section of summary.md and its columns of summary.csv (only in runs with lambda-web cells). */
export const webFunctionsOutput: Output = { section, csvColumns };
