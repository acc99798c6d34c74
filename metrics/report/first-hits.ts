/**
 * The first hits in the report (runs with --first-hits): beside firstResponse in summary.md's
 * results table, the median and the largest first-hit latency and when all K routes were warm; the
 * same in summary.csv; and a section that puts the first request's own cost beside the first hits,
 * so that an eager framework (its work done before listen) and a lazy one (work left to the first
 * request of each route) read differently. Runs without first hits get none of it.
 */
import { firstHitSummaries, type FirstHitSummary } from '../analyse/first-hits.ts';
import type { CellSummary } from '../analyse/aggregate.ts';
import { cellKey, cellLabel } from '../core/cell.ts';
import { markdownTable, ms } from '../core/format.ts';
import type { CsvColumn, ExtraColumn, MarkdownSection, Output, ReportContext } from './contract.ts';
import { medianText } from './markdown.ts';

function lookup(context: ReportContext): ((s: CellSummary) => FirstHitSummary | undefined) | undefined {
  const summaries = firstHitSummaries(context.firstHitSamples);
  return summaries.size ? (s) => summaries.get(cellKey(s.cell)) : undefined;
}

function columns(context: ReportContext): ExtraColumn[] {
  const of = lookup(context);
  if (!of) return [];
  return [
    { header: 'first hit(ms)', value: (s) => medianText(of(s)?.latency) },
    { header: 'first hit max(ms)', value: (s) => (of(s) ? ms(of(s)!.latency.max) : '–') },
    { header: 'all warm(ms)', value: (s) => medianText(of(s)?.allWarm) },
  ];
}

function csvColumns(context: ReportContext): CsvColumn[] {
  const of = lookup(context);
  if (!of) return [];
  return [
    { header: 'first_hits', value: (s) => of(s)?.hits ?? '' },
    { header: 'first_hit_median_ms', value: (s) => of(s)?.latency.median ?? '' },
    { header: 'first_hit_max_ms', value: (s) => of(s)?.latency.max ?? '' },
    { header: 'all_warm_median_ms', value: (s) => of(s)?.allWarm.median ?? '' },
  ];
}

/** The first request's own time: firstResponse − listen (a server) or − init (a Lambda handler), medians. */
function firstRequestMs(s: CellSummary): number | undefined {
  const ready = (s.metrics.listen ?? s.metrics.init)?.median;
  const first = s.metrics.firstResponse?.median;
  return ready === undefined || first === undefined ? undefined : first - ready;
}

const EXPLANATION =
  'After its timed first answer (to the LAST route) each sample sends one request to each of K further distinct routes, ' +
  'spread over the table (the same routes for the same N and K), one after the other, and checks every answer. ' +
  "**first request**: firstResponse − listen (or − init), the first request's own time. **first hit**: the median latency of " +
  'those K requests over all samples (request sent → whole answer), **max** the slowest of them. **all warm**: ms from spawn ' +
  'until the last of them was answered (median). A framework that does its work before listen has a short first request and ' +
  'first hits like a warm request; one that defers it to the first request has a long first request; one that defers it per ' +
  'route (a lazy schema compile, a router built per path) has slow first hits too.';

function section(context: ReportContext): MarkdownSection | undefined {
  const of = lookup(context);
  if (!of) return undefined;
  const rows = context.summaries.flatMap((s) => {
    const hits = of(s);
    if (!hits) return [];
    const first = firstRequestMs(s);
    return [
      [
        cellLabel(s.cell),
        first === undefined ? '–' : ms(first),
        String(hits.hits),
        medianText(hits.latency),
        ms(hits.latency.max),
        medianText(hits.allWarm),
      ],
    ];
  });
  const table = markdownTable(['', 'first request(ms)', 'K', 'first hit(ms)', 'max(ms)', 'all warm(ms)'], rows, [
    'left',
    'right',
    'right',
    'right',
    'right',
    'right',
  ]);
  return { title: 'First hits: the first request of many routes', body: `${EXPLANATION}\n\n${table}` };
}

export const firstHitsOutput: Output = { columns, csvColumns, section };
