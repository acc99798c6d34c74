/** summary.md: the environment, the seeds' table extended with firstResponse, and a pivot by routes. */
import { cellLabel } from '../cell.ts';
import type { CellSummary } from '../aggregate.ts';
import { notableDropped } from '../environment.ts';
import type { RunMeta } from '../meta.ts';
import { invalidBodyText } from './csv.ts';
import { duration, markdownTable, ms, type Align } from './format.ts';

export function environmentBlock(meta: RunMeta | undefined): string {
  if (!meta) return '_meta.json is missing: environment unknown._';
  const m = meta.machine;
  const dropped = notableDropped(meta.environment.dropped);
  const others = meta.environment.dropped.length - dropped.length;
  const frameworks = Object.entries(meta.frameworks)
    .map(([name, f]) => `${name} ${f.version}`)
    .join(', ');
  const runtimes = Object.entries(meta.runtimes)
    .map(([name, version]) => `${name} \`${version}\``)
    .join(', ');
  const lines = [
    `- **Machine:** ${m.os} | ${m.cores} vCPUs | ${m.memoryGB} GB | ${m.cpu}`,
    `- **Runtime:** ${runtimes || 'unknown'} (runner: node \`${meta.runner.node}\`)`,
    `- **Run:** ${meta.startedAt}${meta.durationMs !== undefined ? `, took ${duration(meta.durationMs)} (the runs' own time: ${duration(meta.samplesDurationMs)})` : ''}${meta.interrupted ? ' — **interrupted: partial results**' : ''}`,
    `- **Method:** \`${meta.command}\` (samples: ${String(meta.options.samples)}, warm-up: ${String(meta.options.warmup)}, order: ${String(meta.options.order)})`,
    `- **Frameworks:** ${frameworks || 'none'}`,
    `- **Children's environment:** ${meta.environment.passed.join(', ')}; not passed: ${dropped.join(', ') || 'nothing notable'}${others > 0 ? ` and ${others} other variables` : ''}`,
  ];
  for (const [name, reason] of Object.entries(meta.skipped)) lines.push(`- **Skipped:** ${name} (${reason})`);
  return lines.join('\n');
}

export const DEFINITIONS = [
  'Every figure is the median over the successful samples, in ms from the runner\'s spawn call, each sample a fresh process.',
  '- **startup:** the app and all its routes are created (framework imported, routes registered).',
  '- **listen:** the server is bound and accepting connections (the framework\'s own ready signal).',
  '- **firstResponse:** the runner has received the first valid answer from the LAST route. Frameworks that build their router or compile validators on the first request look fast at `listen`; this is the honest cold start.',
].join('\n');

/** A column another output adds to the results table (for example hyperfine's process time). */
export interface ExtraColumn {
  header: string;
  value(summary: CellSummary): string;
  align?: Align;
}

function resultsTable(summaries: CellSummary[], extraColumns: ExtraColumn[]): string {
  const rows = summaries.map((s) => [
    cellLabel(s.cell),
    ms(s.metrics.startup?.median),
    ms(s.metrics.listen?.median),
    ms(s.metrics.firstResponse?.median),
    ...extraColumns.map((c) => c.value(s)),
    `${s.ok}/${s.ok + s.failed}`,
    invalidBodyText(s),
  ]);
  return markdownTable(
    ['', 'startup(ms)', 'listen(ms)', 'firstResponse(ms)', ...extraColumns.map((c) => c.header), 'ok/samples', 'invalid body'],
    rows,
    ['left', 'right', 'right', 'right', ...extraColumns.map((c) => c.align ?? 'right'), 'right', 'left'],
  );
}

/** Rows: route counts; columns: frameworks; values: median firstResponse. One table per other-dimension group. */
export function pivotTables(summaries: CellSummary[], metric: 'firstResponse' | 'listen' = 'firstResponse'): string {
  const groups = new Map<string, CellSummary[]>();
  for (const s of summaries) {
    const { framework: _f, routes: _r, ...rest } = s.cell;
    const key = Object.entries(rest)
      .map(([k, v]) => `${k}=${v}`)
      .join(', ');
    groups.set(key, [...(groups.get(key) ?? []), s]);
  }
  const parts: string[] = [];
  for (const [key, group] of groups) {
    const frameworks = [...new Set(group.map((s) => s.cell.framework))];
    const routes = [...new Set(group.map((s) => s.cell.routes))].sort((a, b) => a - b);
    const rows = routes.map((n) => [
      String(n),
      ...frameworks.map((f) => ms(group.find((s) => s.cell.framework === f && s.cell.routes === n)?.metrics[metric]?.median)),
    ]);
    if (groups.size > 1) parts.push(`### ${key}`);
    parts.push(markdownTable(['routes', ...frameworks], rows, ['right', ...frameworks.map(() => 'right' as const)]));
  }
  return parts.join('\n\n');
}

function failures(summaries: CellSummary[]): string {
  const lines: string[] = [];
  for (const s of summaries) {
    for (const e of s.errors) lines.push(`- \`${cellLabel(s.cell)}\`: ${e.count} × ${e.reason}`);
    if (s.invalidBody && !s.invalidBody.ok) lines.push(`- \`${cellLabel(s.cell)}\`: ${invalidBodyText(s)}`);
  }
  return lines.length ? lines.join('\n') : 'None: every sample answered its last route correctly.';
}

export interface MarkdownSection {
  title: string;
  body: string;
}

export function summaryMarkdown(
  summaries: CellSummary[],
  meta: RunMeta | undefined,
  extra: MarkdownSection[] = [],
  extraColumns: ExtraColumn[] = [],
): string {
  const sections: MarkdownSection[] = [
    { title: 'Results table', body: `${DEFINITIONS}\n\n${resultsTable(summaries, extraColumns)}` },
    { title: 'firstResponse by route count (median ms)', body: pivotTables(summaries) },
    ...extra,
    { title: 'Failures', body: failures(summaries) },
  ];
  return [
    '# Cold start by route count',
    '',
    environmentBlock(meta),
    '',
    ...sections.flatMap((s) => [`## ${s.title}`, '', s.body, '']),
  ].join('\n');
}
