/**
 * `--attribute`: where each cell's cold start goes, by npm package, from attribution.json.
 * attribution.md has per cell the package table (self and inclusive ms and % of the busy profiled
 * time, the self time up to the end of INIT and its share of INIT when the profile has that cut, bytes
 * in the bundle with --build bundle) and the slowest module loads; chart-attribution.svg
 * stacks each cell's self time by package; summary.md gets the top packages per cell and the links.
 */
import type { TopLevelSpec } from 'vega-lite';
import { OWNER } from '../core/packages.ts';
import { readAttribution } from '../store/attribution-file.ts';
import type { AttributionFile, CellAttribution } from '../core/attribution.ts';
import { cellLabel, compareCells } from '../core/cell.ts';
import { markdownTable, ms, percent } from '../core/format.ts';
import { markdownCode, markdownText } from '../core/escape.ts';
import { CHART_CONFIG, renderSvg } from './charts.ts';
import type { MarkdownSection, ReportContext } from './contract.ts';

export const ATTRIBUTION_MD = 'attribution.md';
export const ATTRIBUTION_CHART = 'chart-attribution.svg';
/** Packages a cell's table lists before the rest is summed up as "other packages". */
const TABLE_ROWS = 15;
/** Packages the chart and summary.md name per cell. */
const CHART_PACKAGES = 8;
const SUMMARY_PACKAGES = 4;

/** Text from a profile (file and package names) for markdown: one line, no backticks, at most 120 characters. */
function code(text: unknown): string {
  return markdownCode(String(text).slice(0, 120));
}

function attributed(context: ReportContext): AttributionFile | undefined {
  const file = readAttribution(context.dir);
  if (!file) return undefined;
  return { ...file, cells: [...file.cells].sort((a, b) => compareCells(a.cell, b.cell)) };
}

export function hasAttribution(context: ReportContext): boolean {
  return attributed(context) !== undefined;
}

function bytesText(bytes: number | undefined): string {
  if (bytes === undefined) return '–';
  return bytes >= 1024 * 1024 ? `${(bytes / 1024 / 1024).toFixed(1)} MB` : `${(bytes / 1024).toFixed(1)} kB`;
}

function cellSection(entry: CellAttribution): string {
  const title = `## ${cellLabel(entry.cell)}`;
  const a = entry.attribution;
  if (!a) return `${title}\n\nNo attribution: ${markdownText(entry.reason ?? 'no profile')}.`;
  const share = (value: number) => (a.busyMs > 0 ? percent(value / a.busyMs) : '–');
  const init = a.init;
  const initShare = (value: number) => (init && init.busyMs > 0 ? percent(value / init.busyMs) : '–');
  const bytes = entry.bundleBytes;
  const shown = a.packages.slice(0, TABLE_ROWS);
  const rest = a.packages.slice(TABLE_ROWS);
  const idle = (p: { name: string }) => p.name === OWNER.idle;
  const rows = shown.map((p) => [
    code(p.name),
    ms(p.selfMs),
    idle(p) ? '–' : share(p.selfMs),
    ...(init ? [ms(p.initSelfMs ?? 0), idle(p) ? '–' : initShare(p.initSelfMs ?? 0)] : []),
    ms(p.inclusiveMs),
    idle(p) ? '–' : share(p.inclusiveMs),
    ...(bytes ? [bytesText(bytes[p.name])] : []),
  ]);
  if (rest.length) {
    const restMs = rest.reduce((sum, p) => sum + p.selfMs, 0);
    const restInit = rest.reduce((sum, p) => sum + (p.initSelfMs ?? 0), 0);
    rows.push([
      `${rest.length} other packages`,
      ms(restMs),
      share(restMs),
      ...(init ? [ms(restInit), initShare(restInit)] : []),
      '',
      '',
      ...(bytes ? [''] : []),
    ]);
  }
  const headers = [
    'package',
    'self (ms)',
    'self',
    ...(init ? ['self in INIT (ms)', 'of INIT'] : []),
    'inclusive (ms)',
    'inclusive',
    ...(bytes ? ['bytes in the bundle'] : []),
  ];
  const status = entry.ok
    ? `the profiled run answered correctly (firstResponse ${ms(entry.firstResponseMs)} ms under the profiler)`
    : `the profiled run did not answer correctly (${markdownText(entry.reason ?? 'unknown')}): the profile covers what ran`;
  const modules = a.modules.length
    ? [
        '',
        "Slowest module loads (inclusive time of each file's top-level code, the modules it requires included):",
        '',
        markdownTable(
          ['module', 'package', 'load (ms)', 'share'],
          a.modules.slice(0, 10).map((m) => [code(m.file), code(m.owner), ms(m.loadMs), share(m.loadMs)]),
          ['left', 'left', 'right', 'right'],
        ),
      ]
    : [];
  return [
    title,
    '',
    `${a.samples} samples over ${ms(a.profiledMs)} ms, of which ${ms(a.busyMs)} ms busy (percentages are of that); ${status}.` +
      (init ? ` INIT (to the listen, or a handler's first \`next\`): ${ms(init.busyMs)} ms busy; "of INIT" is the share of that.` : ''),
    '',
    markdownTable(headers, rows, ['left', ...headers.slice(1).map(() => 'right' as const)]),
    ...modules,
  ].join('\n');
}

export function attributionMarkdown(context: ReportContext): string {
  const file = attributed(context);
  if (!file) return '';
  return [
    '# Where the cold start goes, by package',
    '',
    `Method: ${file.method.profiler}, attributed to the npm package owning each frame's file ` +
      "(`node_modules/<pkg>`, `@scope/pkg`); `(app)` is the app itself (the entry or the generated file), `(node)` Node's own " +
      "start before any app code, `(coldstart)` the preload or bootstrap coldstart adds, `(program)` and `(gc)` V8's " +
      "own work and garbage collection, `(idle)` waiting. **self**: the code that ran; Node's internals and native " +
      'functions (require, compile, file reads) count for the package that called them. **inclusive**: every package ' +
      "on the stack. The profile runs from the runtime's start to the exit right after the first answer: the cold " +
      'start, INIT and the first request. The profiler itself slows the run down; read the shares, not the ms, as the result.',
    '',
    `![self time by package](${ATTRIBUTION_CHART})`,
    '',
    ...file.cells.map(cellSection).flatMap((s) => [s, '']),
  ].join('\n');
}

export async function attributionChart(context: ReportContext): Promise<string> {
  const file = attributed(context);
  const values = (file?.cells ?? []).flatMap((entry) => {
    const a = entry.attribution;
    if (!a) return [];
    const busy = a.packages.filter((p) => p.name !== OWNER.idle);
    const top = busy.slice(0, CHART_PACKAGES);
    const other = busy.slice(CHART_PACKAGES).reduce((sum, p) => sum + p.selfMs, 0);
    const label = cellLabel(entry.cell);
    return [
      ...top.map((p) => ({ cell: label, package: p.name, ms: p.selfMs })),
      ...(other > 0 ? [{ cell: label, package: 'other', ms: other }] : []),
    ];
  });
  const spec: TopLevelSpec = {
    title: { text: 'Where the cold start goes, by package', subtitle: 'self CPU time in one profiled run per cell (idle left out)' },
    config: CHART_CONFIG,
    width: 640,
    data: { values },
    mark: 'bar',
    encoding: {
      y: { field: 'cell', type: 'nominal', title: null, sort: null },
      x: { field: 'ms', type: 'quantitative', title: 'self time (ms)', stack: 'zero' },
      color: { field: 'package', type: 'nominal', title: 'package', scale: { scheme: 'tableau20' } },
      order: { field: 'ms', type: 'quantitative', sort: 'descending' },
      tooltip: [{ field: 'cell' }, { field: 'package' }, { field: 'ms', format: '.1f' }],
    },
  };
  return renderSvg(spec);
}

export function attributionSection(context: ReportContext): MarkdownSection | undefined {
  const file = attributed(context);
  if (!file) return undefined;
  // the INIT columns only when some profile has the cut (older attribution.json files have none)
  const withInit = file.cells.some((c) => c.attribution?.init);
  const rows = file.cells.map((entry) => {
    const a = entry.attribution;
    const reason = markdownText(entry.reason ?? 'no profile');
    if (!a) return [cellLabel(entry.cell), '–', `no attribution: ${reason}`, ...(withInit ? ['–', ''] : [])];
    const top = a.packages
      .filter((p) => p.name !== OWNER.idle)
      .slice(0, SUMMARY_PACKAGES)
      .map((p) => `${markdownText(p.name)} ${a.busyMs > 0 ? percent(p.selfMs / a.busyMs) : '–'}`);
    const initTop = a.init
      ? a.packages
          .filter((p) => p.name !== OWNER.idle && (p.initSelfMs ?? 0) > 0)
          .sort((x, y) => (y.initSelfMs ?? 0) - (x.initSelfMs ?? 0))
          .slice(0, SUMMARY_PACKAGES)
          .map((p) => `${markdownText(p.name)} ${a.init!.busyMs > 0 ? percent((p.initSelfMs ?? 0) / a.init!.busyMs) : '–'}`)
          .join(', ')
      : '–';
    return [cellLabel(entry.cell), ms(a.busyMs), top.join(', '), ...(withInit ? [a.init ? ms(a.init.busyMs) : '–', initTop] : [])];
  });
  return {
    title: 'Where the cold start goes, by package',
    body: [
      `One unrecorded run per cell under V8's CPU profiler; the self time of the largest packages as a share of the busy ` +
        `profiled time (runtime start → first answer) and, where the run placed it, of INIT alone (→ listen, or a handler's ` +
        `first \`next\`). Every package, inclusive times and the slowest module loads: ` +
        `[${ATTRIBUTION_MD}](${ATTRIBUTION_MD}).`,
      '',
      markdownTable(
        ['', 'busy (ms)', 'largest shares (self)', ...(withInit ? ['INIT busy (ms)', 'largest shares of INIT (self)'] : [])],
        rows,
        ['left', 'right', 'left', ...(withInit ? (['right', 'left'] as const) : [])],
      ),
      '',
      `![self time by package](${ATTRIBUTION_CHART})`,
    ].join('\n'),
  };
}
