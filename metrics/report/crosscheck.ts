/**
 * The hyperfine cross-check in a run's report, when the run folder holds hyperfine.json: a `process`
 * column in summary.md's results table, `process_median_ms` in summary.csv, and a section that sets
 * the runner's `listen` beside hyperfine's process time per cell and flags the cells where they
 * cannot both be right.
 */
import { markdownCode, markdownText } from '../core/escape.ts';
import type { CellSummary } from '../analyse/aggregate.ts';
import { cellKey } from '../core/cell.ts';
import { crossCheck, FAR_BELOW_RATIO, isFlagged, typicalGap, type CrossCheck, type Spread } from '../analyse/crosscheck.ts';
import { readHyperfine } from '../store/hyperfine-file.ts';
import { HYPERFINE_FILE, HyperfineFileError } from '../core/hyperfine.ts';
import type { CsvColumn, ExtraColumn, MarkdownSection, ReportContext } from './contract.ts';
import { markdownTable, ms, round3 } from '../core/format.ts';

type Loaded = { check: CrossCheck } | { error: string } | undefined;
const loaded = new WeakMap<ReportContext, Loaded>();

/** The run folder's cross-check (read once per report); undefined without hyperfine.json. */
export function crossCheckOf(context: ReportContext): Loaded {
  if (!loaded.has(context)) {
    let value: Loaded;
    try {
      const file = readHyperfine(context.dir);
      value = file ? { check: crossCheck(context.summaries, file) } : undefined;
    } catch (error) {
      if (!(error instanceof HyperfineFileError)) throw error;
      value = { error: error.message };
    }
    loaded.set(context, value);
  }
  return loaded.get(context);
}

function processOf(context: ReportContext, summary: CellSummary): number | undefined {
  const value = crossCheckOf(context);
  return value && 'check' in value ? value.check.processMs.get(cellKey(summary.cell)) : undefined;
}

export function processColumns(context: ReportContext): ExtraColumn[] {
  const value = crossCheckOf(context);
  if (!value || !('check' in value)) return [];
  return [{ header: 'process(ms)', value: (s) => ms(processOf(context, s)) }];
}

export function processCsvColumns(context: ReportContext): CsvColumn[] {
  const value = crossCheckOf(context);
  if (!value || !('check' in value)) return [];
  return [{ header: 'process_median_ms', value: (s) => round3(processOf(context, s)) }];
}

function percent(value: number): string {
  return `${Math.round(value * 100)}%`;
}

function range(spread: Spread | undefined): string {
  return spread ? `${ms(spread.min)}–${ms(spread.max)}` : '–';
}

export function crossCheckSection(context: ReportContext): MarkdownSection | undefined {
  const value = crossCheckOf(context);
  if (!value) return undefined;
  const title = 'Cross-check with hyperfine';
  if ('error' in value)
    return { title, body: `${HYPERFINE_FILE} could not be read, so nothing was cross-checked: ${markdownText(value.error)}` };
  const { rows, file } = value.check;
  const info = file.coldstart;
  const when =
    info?.startedAt && context.meta?.startedAt
      ? ` The runner started at ${markdownText(context.meta.startedAt)}, hyperfine at ${markdownText(info.startedAt)}.`
      : '';
  const how =
    info?.tool === 'coldstart'
      ? `${markdownText(info.hyperfine ?? 'hyperfine')} ran every file ${markdownText(String(info.runs ?? '?'))} times per cell ` +
        `after ${markdownText(String(info.warmup ?? '?'))} warm-up run${info.warmup === 1 ? '' : 's'} ` +
        `(${markdownCode(info.command ?? 'hyperfine')}), ` +
        "with `COLDSTART_EXIT=1` (the server exits right after its ready line), no shell, the runner's clean environment " +
        `and a scratch cwd.${when}`
      : `${HYPERFINE_FILE} was not written by \`npm run metrics:hyperfine\`; ` +
        'its results are matched to cells by their parameters or command names.';
  const definitions = [
    how,
    "- **listen:** the runner's median, from its spawn call to the server accepting connections.",
    "- **process:** hyperfine's median wall time, from exec to exit: listen plus the exit, so under the same load listen < process.",
    '- **check:** flagged when every runner sample is slower than every hyperfine run (runner above), ' +
      `or every runner sample is under ${percent(FAR_BELOW_RATIO)} of every hyperfine run (runner far below). ` +
      "Then a clock is wrong, or the machine's load changed between the two runs: re-run both to tell.",
  ].join('\n');
  const table = markdownTable(
    ['', 'listen(ms)', 'listen range', 'process(ms)', 'process range', 'process − listen(ms)', 'listen/process', 'runs', 'check'],
    rows.map((r) => [
      r.label,
      ms(r.listen?.median),
      range(r.listen),
      ms(r.process?.median),
      range(r.process),
      r.listen && r.process ? ms(r.process.median - r.listen.median) : '–',
      r.listen && r.process ? percent(r.listen.median / r.process.median) : '–',
      r.runs === undefined ? '–' : String(r.runs),
      isFlagged(r.verdict) ? `**FLAG: ${r.verdict}**` : r.verdict,
    ]),
    ['left', 'right', 'right', 'right', 'right', 'right', 'right', 'right', 'left'],
  );
  const gap = typicalGap(rows);
  const flagged = rows.filter((r) => isFlagged(r.verdict));
  const lines = [definitions, '', table, ''];
  lines.push(
    gap
      ? `Typical gap over the ${gap.cells} cells both measured: process − listen ${ms(gap.gapMs)} ms (median over cells), ` +
          `listen at ${percent(gap.ratio)} of process.`
      : 'No cell was measured by both.',
  );
  lines.push(
    flagged.length
      ? `**${flagged.length} cell${flagged.length > 1 ? 's' : ''} flagged:** ${flagged.map((r) => markdownCode(r.label)).join(', ')}.`
      : 'No cell flagged.',
  );
  for (const failure of info?.failed ?? [])
    lines.push(`- ${markdownCode(failure.command)}: hyperfine failed: ${markdownText(failure.reason)}`);
  if (info?.interrupted) lines.push('- hyperfine was interrupted: some cells were not measured.');
  return { title, body: lines.join('\n') };
}
