/** summary.md: the environment, the results table (`| | startup(ms) | listen(ms) |` … firstResponse), and a pivot by routes. */
import { cellLabel, shownDimensions } from '../core/cell.ts';
import { FROM_START_METRICS, type CellSummary, type Stats } from '../analyse/aggregate.ts';
import { pastEndOfLife } from '../core/end-of-life.ts';
import { notableDropped, type RunMeta } from '../core/meta.ts';
import type { MetaSpec } from '../core/meta-spec.ts';
import type { ExtraColumn, MarkdownSection } from './contract.ts';
import { loadText, parseLoadSummary, type LoadSummary } from '../core/load.ts';
import { invalidBodyText } from './csv.ts';
import { duration, markdownTable, ms, type Align } from '../core/format.ts';
import { markdownCode, markdownText } from '../core/escape.ts';
import { countsInstructions } from '../core/dimensions.ts';
import { targetKind } from '../core/kinds.ts';

/** The machine's load while the run measured, when meta.json recorded it (runs before it did not). */
export function runLoad(meta: RunMeta | undefined): LoadSummary | undefined {
  return parseLoadSummary((meta as { load?: unknown } | undefined)?.load);
}

/** A `measure` run: the cells are the user's apps, not generated route files (the report words them as apps). */
export function appsRun(meta: RunMeta | undefined): boolean {
  return meta?.spec.source.kind === 'apps';
}

/** What a run with counted cells did with them, for the Method line; empty for other runs. */
function countedMethod({ cells, sampling }: MetaSpec): string {
  const measures = cells.measures;
  if (!countsInstructions(measures)) return '';
  const only = measures.length === 1 ? ' (timed samples and warm-up apply to no cell)' : '';
  return `; counted cells: ${sampling?.countSamples ?? 1} sample(s) each, no warm-up, ${sampling?.jobs ?? 1} at a time${only}`;
}

/** The Method line's samples, warm-up and order: as sampled, or (an import) what was read. */
function methodOf({ source, sampling }: MetaSpec): unknown[] {
  if (source.kind === 'imported') return [source.samples, source.warmup, source.order];
  return [sampling?.samples, sampling?.warmup, sampling?.order];
}

/** `measure` runs: the user's apps as meta.json records them (file names from outside: one line, no backticks). */
function appsLine(meta: RunMeta): string | undefined {
  const apps = meta.spec.source.kind === 'apps' ? meta.spec.source.apps : [];
  if (apps.length === 0) return undefined;
  const text = (value: unknown) => markdownCode(String(value));
  const described = apps.map((app) => {
    const request = app.request as { method?: unknown; path?: unknown } | undefined;
    const initExport = typeof app.initExport === 'string' ? `, init export ${text(app.initExport)}` : '';
    // a handler: its Handler setting and task root (runs before they were recorded: its file and export)
    const how = targetKind(app.kind).handler
      ? typeof app.handler === 'string' && typeof app.taskRoot === 'string'
        ? `handler ${text(app.handler)} in ${text(app.taskRoot)}${initExport}`
        : `handler ${text(`${app.file}.${String(app.exportName)}`)}`
      : `server ${text(app.file)}, ${text(`${String(request?.method)} ${String(request?.path)}`)}`;
    return `${markdownText(app.name)} (${how})`;
  });
  return `- **Apps:** ${described.join('; ')}`;
}

export function environmentBlock(meta: RunMeta | undefined): string {
  if (!meta) return '_meta.json is missing: environment unknown._';
  const m = meta.machine;
  const dropped = notableDropped(meta.environment.dropped);
  const others = meta.environment.dropped.length - dropped.length;
  // every text here comes from meta.json, which a run folder carries from wherever it was made
  const t = (value: unknown) => markdownText(String(value));
  const frameworks = Object.entries(meta.frameworks)
    .map(([name, f]) => `${t(name)} ${t(f.version)}`)
    .join(', ');
  const runtimes = Object.entries(meta.runtimes)
    .map(([name, version]) => `${t(name)} ${markdownCode(version)}`)
    .join(', ');
  const [samples, warmup, order] = methodOf(meta.spec);
  const took =
    meta.durationMs !== undefined ? `, took ${duration(meta.durationMs)} (the runs' own time: ${duration(meta.samplesDurationMs)})` : '';
  const lines = [
    `- **Machine:** ${t(m.os)} | ${t(m.cores)} vCPUs | ${t(m.memoryGB)} GB | ${t(m.cpu)}`,
    `- **Runtime:** ${runtimes || 'unknown'} (runner: node ${markdownCode(meta.runner.node)})`,
    `- **Run:** ${t(meta.startedAt)}${took}${meta.interrupted ? ' — **interrupted: partial results**' : ''}`,
    `- **Method:** ${markdownCode(meta.command)} ` +
      `(samples: ${t(samples)}, warm-up: ${t(warmup)}, order: ${t(order)}` +
      `${countedMethod(meta.spec)})`,
    appsLine(meta) ?? `- **Frameworks:** ${frameworks || 'none'}`,
    `- **Children's environment:** ${meta.environment.passed.map(t).join(', ')}; ` +
      `not passed: ${dropped.map(t).join(', ') || 'nothing notable'}${others > 0 ? ` and ${others} other variables` : ''}`,
  ];
  const load = runLoad(meta);
  if (load) lines.push(`- **Machine load:** ${loadText(load)}`);
  for (const [name, reason] of Object.entries(meta.skipped)) lines.push(`- **Skipped:** ${t(name)} (${t(reason)})`);
  for (const [name, version] of Object.entries(meta.runtimes)) {
    const eol = pastEndOfLife(version, new Date(meta.startedAt));
    if (eol)
      lines.push(
        `- ⚠ **End of life:** ${t(name)} ${markdownCode(version)} was past its end of life (${eol}) when this ran: ` +
          'measure a supported line too.',
      );
  }
  return lines.join('\n');
}

export const DEFINITIONS = [
  "Every figure is the median over the successful samples, in ms from the runner's spawn call, each sample a fresh process.",
  '- **startup:** the app and all its routes are created (framework imported, routes registered).',
  "- **listen:** the server is bound and accepting connections (the framework's own ready signal).",
  '- **firstResponse:** the runner has received the first valid answer from the LAST route. ' +
    'Frameworks that build their router or compile validators on the first request look fast at `listen`; this is the honest cold start.',
].join('\n');

/** The results table's CI column when it says more than the range: a 95 % bootstrap interval of the median. */
const CI_DEFINITION =
  '- **firstResponse 95% CI:** a 95 % bootstrap confidence interval of that median (2000 seeded resamples, percentile method): ' +
  'where the median would likely land on a rerun.';

/** The same column when every cell's interval is its fastest–slowest range (5 samples or fewer). */
const RANGE_DEFINITION =
  '- **firstResponse fastest–slowest:** the fastest and the slowest sample of the cell. With 5 samples or fewer a 95 % ' +
  "interval of the median is that range (a bootstrap interval's and the exact order-statistic one alike), so it is shown " +
  'under its own name; from 6 samples a cell gets its 95 % bootstrap CI here instead (`--samples`).';

/**
 * Whether the 95 % CI of a cell's median says more than its fastest–slowest range: it does not with 5
 * samples or fewer (every bootstrap resample's median then lies within the range, and the 2.5 % and
 * 97.5 % quantiles of 2000 of them reach both ends), nor without one. The results tables show the CI
 * column only when some cell's interval is narrower than its range (docs/guide/reading-results.md).
 */
export function ciNarrowerThanRange(stats: Stats | undefined): boolean {
  const ci = stats?.ci95;
  return ci !== undefined && (ci.low !== stats!.min || ci.high !== stats!.max);
}

/** The results table's interval column: the CI when some cell's is narrower than its range, else the range. */
function intervalColumn(summaries: CellSummary[]): { header: string; definition: string; text: (s: Stats | undefined) => string } {
  return summaries.some((s) => ciNarrowerThanRange(s.metrics.firstResponse))
    ? { header: 'firstResponse 95% CI', definition: CI_DEFINITION, text: ciText }
    : { header: 'firstResponse fastest–slowest', definition: RANGE_DEFINITION, text: (s) => (s ? `${ms(s.min)}–${ms(s.max)}` : '–') };
}

/** DEFINITIONS for `measure`: the user's own apps, which have no routes to count (docs/guide/measure-your-app.md). */
export const APP_DEFINITIONS = [
  "Every figure is the median over the successful samples, in ms from the runner's spawn call, each sample a fresh process of the app.",
  "- **startup:** a handler's module is loaded (the probe bootstrap's mark); " +
    'a server app has none: its phases are boot, ready and first response.',
  "- **listen:** a server of the app emitted `'listening'` (the runner's preload hooks it): bound and accepting connections.",
  '- **firstResponse:** the runner has received the first valid answer to the request (a handler: its response to the event). ' +
    'An app that defers work to the first request looks fast at `listen`; this is the cold start a user waits for.',
].join('\n');

/** Read beside DEFINITIONS when the run recorded the child's CPU time. */
export const CPU_DEFINITIONS = [
  '- **CPU …:** the CPU time (user + system, every thread) the child had used by that point since its process started, ' +
    'median over the samples; other processes on the machine barely move it, so compare it when wall times are noisy.',
  '- **CPU/wall:** median CPU time to firstResponse over median wall time to firstResponse. Above 1: the runtime worked ' +
    'on other threads in parallel (V8 compiling and collecting garbage), which a Lambda with less than one vCPU cannot do ' +
    'in parallel, so there that work lengthens the cold start.',
].join('\n');

/** Median CPU time over median wall time to firstResponse, or undefined when either is missing. */
export function cpuWallRatio(summary: CellSummary): number | undefined {
  const cpu = summary.cpu?.firstResponse?.median;
  const wall = summary.metrics.firstResponse?.median;
  return cpu !== undefined && wall !== undefined && wall > 0 ? cpu / wall : undefined;
}

/** The results table's headers of CellSummary.fromStart, in FROM_START_METRICS order. */
export const FROM_START_HEADERS = FROM_START_METRICS.map((m) => `${m} from start(ms)`);

/** Read beside DEFINITIONS when the run's children marked their first statement. */
export const FROM_START_DEFINITION =
  "- **… from start:** the same mark from the child's first statement (its `start` mark: node has booted and " +
  "begun the file) instead of from spawn: the clock of the seed's table (MionKit/Benchmarks), which starts " +
  "`process.hrtime()` on the route file's first line. The difference is the runtime's own boot.";

function hasFromStart(summaries: CellSummary[]): boolean {
  return summaries.some((s) => s.fromStart);
}

function hasCpu(summaries: CellSummary[]): boolean {
  return summaries.some((s) => s.cpu && Object.keys(s.cpu).length > 0);
}

/** A median for a table, with ⚠ when the cell's spread is wide (max/min > 1.5). */
export function medianText(stats: Stats | undefined): string {
  if (!stats) return '–';
  return stats.wide ? `${ms(stats.median)} ⚠` : ms(stats.median);
}

export function ciText(stats: Stats | undefined): string {
  return stats?.ci95 ? `${ms(stats.ci95.low)}–${ms(stats.ci95.high)}` : '–';
}

export const INIT_DEFINITION =
  "- **init:** Lambda cells (`lambda/…`): the handler file asked the runner's Runtime API for its first event (`GET next`), " +
  "where Lambda ends INIT; their `listen` is empty, and `firstResponse` is the handler's response to that event.";

export const WIDE_LEGEND =
  '⚠ wide spread: the slowest sample of that cell took more than 1.5 × the fastest (max/min > 1.5). ' +
  'Read that median as noisy, not as a fact.';

/** Any ⚠ among those metrics; `cpu`: the results table's CPU and from-start columns too. */
function anyWide(summaries: CellSummary[], metrics: readonly ('startup' | 'listen' | 'firstResponse')[], cpu = false): boolean {
  return summaries.some(
    (s) =>
      metrics.some((m) => s.metrics[m]?.wide || (cpu && s.cpu?.[m]?.wide)) ||
      (cpu && FROM_START_METRICS.some((m) => s.fromStart?.[m]?.wide)),
  );
}

function resultsTable(summaries: CellSummary[], extraColumns: ExtraColumn[]): string {
  // an unsupported cell (e.g. the compile cache on Node 20) has no figures and no failures
  const or = (s: CellSummary, text: string) => (s.unsupported ? 'unsupported' : text);
  // runs recorded before the child reported CPU time keep the table they always had
  const cpu = hasCpu(summaries);
  const ratioText = (s: CellSummary) => {
    const ratio = cpuWallRatio(s);
    return ratio === undefined ? '–' : ratio.toFixed(2);
  };
  // a run with Lambda cells shows their end of INIT beside the servers' listen
  const init = summaries.some((s) => s.metrics.init);
  // runs whose children marked their first statement: startup and listen on the seed's clock too
  const fromStart = hasFromStart(summaries);
  const interval = intervalColumn(summaries);
  const rows = summaries.map((s) => [
    cellLabel(s.cell),
    or(s, medianText(s.metrics.startup)),
    or(s, medianText(s.metrics.listen)),
    ...(init ? [or(s, medianText(s.metrics.init))] : []),
    ...(fromStart ? FROM_START_METRICS.map((m) => or(s, medianText(s.fromStart?.[m]))) : []),
    or(s, medianText(s.metrics.firstResponse)),
    interval.text(s.metrics.firstResponse),
    ...(cpu ? [...(['startup', 'listen', 'firstResponse'] as const).map((m) => or(s, medianText(s.cpu?.[m]))), or(s, ratioText(s))] : []),
    ...extraColumns.map((c) => c.value(s)),
    or(s, `${s.ok}/${s.ok + s.failed}`),
    invalidBodyText(s),
  ]);
  const cpuHeaders = cpu ? ['CPU startup(ms)', 'CPU listen(ms)', 'CPU firstResponse(ms)', 'CPU/wall'] : [];
  const initHeader = init ? ['init(ms)'] : [];
  const fromStartHeaders = fromStart ? FROM_START_HEADERS : [];
  const headers = [
    '',
    'startup(ms)',
    'listen(ms)',
    ...initHeader,
    ...fromStartHeaders,
    'firstResponse(ms)',
    interval.header,
    ...cpuHeaders,
  ];
  const align: Align[] = [
    'left',
    'right',
    'right',
    ...initHeader.map(() => 'right' as const),
    ...fromStartHeaders.map(() => 'right' as const),
    'right',
    'right',
    ...cpuHeaders.map(() => 'right' as const),
  ];
  return markdownTable([...headers, ...extraColumns.map((c) => c.header), 'ok/samples', 'invalid body'], rows, [
    ...align,
    ...extraColumns.map((c) => c.align ?? 'right'),
    'right',
    'left',
  ]);
}

/** Rows: route counts; columns: frameworks; values: median firstResponse. One table per other-dimension group. */
export function pivotTables(
  summaries: CellSummary[],
  metric: 'firstResponse' | 'listen' = 'firstResponse',
  text: (s: CellSummary) => string = (s) => (s.unsupported ? 'unsupported' : medianText(s.metrics[metric])),
): string {
  const groups = new Map<string, CellSummary[]>();
  const dimensions = shownDimensions(summaries.map((s) => s.cell)).filter((d) => d !== 'framework' && d !== 'routes');
  for (const s of summaries) {
    const key = dimensions.map((d) => `${d}=${s.cell[d]}`).join(', ');
    groups.set(key, [...(groups.get(key) ?? []), s]);
  }
  const parts: string[] = [];
  for (const [key, group] of groups) {
    const frameworks = [...new Set(group.map((s) => s.cell.framework))];
    const routes = [...new Set(group.map((s) => s.cell.routes))].sort((a, b) => a - b);
    const rows = routes.map((n) => [
      String(n),
      ...frameworks.map((f) => {
        const cell = group.find((s) => s.cell.framework === f && s.cell.routes === n);
        return cell ? text(cell) : '–';
      }),
    ]);
    if (groups.size > 1) parts.push(`### ${key}`);
    parts.push(markdownTable(['routes', ...frameworks], rows, ['right', ...frameworks.map(() => 'right' as const)]));
  }
  return parts.join('\n\n');
}

function failures(summaries: CellSummary[], apps = false): string {
  const lines: string[] = [];
  for (const s of summaries) {
    // reasons carry a child's own words (its stderr) or an imported log's fields
    for (const e of s.errors) lines.push(`- ${markdownCode(cellLabel(s.cell))}: ${e.count} × ${markdownText(e.reason)}`);
    if (s.invalidBody && !s.invalidBody.ok) lines.push(`- ${markdownCode(cellLabel(s.cell))}: ${markdownText(invalidBodyText(s))}`);
  }
  if (lines.length) return lines.join('\n');
  return apps ? 'None: every sample answered the request correctly.' : 'None: every sample answered its last route correctly.';
}

/** Cells the runtime cannot run (not failures): listed with the reason, only when there are any. */
function unsupportedSection(summaries: CellSummary[]): MarkdownSection[] {
  const lines = summaries
    .filter((s) => s.unsupported)
    .map((s) => `- ${markdownCode(cellLabel(s.cell))}: ${markdownText(s.unsupported ?? '')}`);
  return lines.length
    ? [{ title: 'Unsupported', body: `Not measured and not failed: the runtime cannot do what the cell asks.\n\n${lines.join('\n')}` }]
    : [];
}

/** The one line summary.md and the console give instead of every outlier warning. */
export function warningsHeadline(count: number, cells: number): string {
  return `Outliers (MAD test) in ${count} of ${cells} cells: see [Warnings](#warnings) at the end.`;
}

export function summaryMarkdown(
  summaries: CellSummary[],
  meta: RunMeta | undefined,
  extra: MarkdownSection[] = [],
  extraColumns: ExtraColumn[] = [],
  warnings: string[] = [],
): string {
  const legend = (wide: boolean) => (wide ? `\n\n${WIDE_LEGEND}` : '');
  const measured = summaries.filter((s) => !s.unsupported).length;
  const busy = runLoad(meta)?.warning;
  const apps = appsRun(meta);
  const definitions = [
    apps ? APP_DEFINITIONS : DEFINITIONS,
    intervalColumn(summaries).definition,
    ...(summaries.some((s) => s.metrics.init) ? [INIT_DEFINITION] : []),
    ...(hasFromStart(summaries) ? [FROM_START_DEFINITION] : []),
    ...(hasCpu(summaries) ? [CPU_DEFINITIONS] : []),
  ].join('\n');
  const resultsWide = anyWide(summaries, ['startup', 'listen', 'firstResponse'], true);
  const sections: MarkdownSection[] = [
    { title: 'Results table', body: `${definitions}\n\n${resultsTable(summaries, extraColumns)}${legend(resultsWide)}` },
    // the user's apps have no route count to pivot on: the results table has their medians
    ...(apps
      ? []
      : [
          {
            title: 'firstResponse by route count (median ms)',
            body: `${pivotTables(summaries)}${legend(anyWide(summaries, ['firstResponse']))}`,
          },
        ]),
    ...extra,
    { title: 'Failures', body: failures(summaries, apps) },
    ...unsupportedSection(summaries),
    ...(warnings.length || busy
      ? [{ title: 'Warnings', body: [...(busy ? [busy] : []), ...warnings].map((w) => `- ⚠ ${w}`).join('\n') }]
      : []),
  ];
  const headline = [
    ...(busy ? [`⚠ ${busy}`, ''] : []),
    ...(warnings.length ? [`⚠ ${warningsHeadline(warnings.length, measured)}`, ''] : []),
  ];
  return [
    apps ? '# Cold start of your app' : '# Cold start by route count',
    '',
    environmentBlock(meta),
    '',
    ...headline,
    ...sections.flatMap((s) => [`## ${s.title}`, '', s.body, '']),
  ].join('\n');
}
