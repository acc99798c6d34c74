/**
 * summary.md's precision section for a `--samples auto` run: per cell the samples taken, the
 * half-width of the 95 % CI of its median reached (the same seeded interval that decided), and why
 * sampling stopped.
 */
import type { CellSummary } from '../analyse/aggregate.ts';
import { assessCell, formatPrecision, precisionSettings, type CellPrecision } from '../analyse/precision.ts';
import { cellKey, cellLabel } from '../core/cell.ts';
import { markdownTable, ms, percent } from '../core/format.ts';
import type { RunMeta } from '../core/meta.ts';
import type { MarkdownSection, ReportContext } from './contract.ts';

function settingsOf(meta: RunMeta | undefined): { precision: number; minSamples: number; maxSamples: number } | undefined {
  const sampling = meta?.spec.sampling;
  if (sampling?.samples !== 'auto' || !sampling.precision) return undefined;
  const { precision, minSamples, maxSamples } = sampling.precision;
  return precisionSettings({ precision, minSamples, maxSamples });
}

/** Each measured cell's precision state, recomputed from its samples. */
export function cellPrecisions(
  summaries: CellSummary[],
  meta: RunMeta | undefined,
): { summary: CellSummary; state: CellPrecision }[] | undefined {
  const settings = settingsOf(meta);
  if (!settings) return undefined;
  return summaries
    .filter((s) => !s.unsupported)
    .map((summary) => {
      const key = cellKey(summary.cell);
      const values = summary.metrics.firstResponse?.values ?? [];
      return { summary, state: assessCell({ key, seed: `coldstart|${key}|firstResponse`, values, failures: summary.failed }, settings) };
    });
}

export function precisionSection(context: ReportContext): MarkdownSection | undefined {
  const rows = cellPrecisions(context.summaries, context.meta);
  const settings = settingsOf(context.meta);
  if (!rows || !settings) return undefined;
  const table = markdownTable(
    ['', 'samples', 'firstResponse median (ms)', '95 % CI half-width', 'stopped'],
    rows.map(({ summary, state }) => [
      cellLabel(summary.cell),
      String(state.samples),
      ms(state.median),
      state.relative === undefined ? '–' : `±${percent(state.relative)} (${ms(state.halfWidth)} ms)`,
      state.stopped ?? formatPrecision(state),
    ]),
    ['left', 'right', 'right', 'right', 'left'],
  );
  const reached = rows.filter((r) => r.state.stopped === 'precision reached').length;
  return {
    title: 'Precision (--samples auto)',
    body:
      'Each cell was sampled in interleaved rounds until the 95 % CI of its firstResponse median ' +
      `lay within ±${percent(settings.precision)} of it ` +
      `(at least ${settings.minSamples}, at most ${settings.maxSamples} samples). ` +
      `${reached} of ${rows.length} cells reached it.\n\n${table}`,
  };
}
