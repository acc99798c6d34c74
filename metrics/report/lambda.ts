/**
 * summary.md's Lambda section, when the run has Lambda-shaped cells: what each cell's REPORT line
 * would say (Init Duration, Duration, Billed Duration, Max Memory Used), and, when the same cell
 * also ran as a server, what the adapter costs: the handler's cold start against the server's.
 */
import type { CellSummary } from '../analyse/aggregate.ts';
import { cellKey, cellLabel, makeCell } from '../core/cell.ts';
import { markdownTable, ms } from '../core/format.ts';
import type { MarkdownSection, ReportContext } from './contract.ts';
import { targetKind, isLocalHandler } from '../core/kinds.ts';

function reportTable(cells: CellSummary[]): string {
  return markdownTable(
    ['', 'Init Duration (ms)', 'Duration (ms)', 'Billed Duration (ms)', 'Max Memory Used (MB)', 'Memory Size (MB)', 'samples'],
    cells.map((s) => [
      cellLabel(s.cell),
      ms(s.lambda!.initMs.median),
      ms(s.lambda!.durationMs.median),
      String(Math.round(s.lambda!.billedMs.median)),
      s.lambda!.maxMemoryUsedMB === undefined ? '–' : String(s.lambda!.maxMemoryUsedMB),
      s.lambda!.memorySizeMB === undefined ? '–' : String(s.lambda!.memorySizeMB),
      String(s.ok),
    ]),
    ['left', 'right', 'right', 'right', 'right', 'right', 'right'],
  );
}

function percent(delta: number, base: number): string {
  return `${delta >= 0 ? '+' : ''}${Math.round((delta / base) * 100)} %`;
}

/** The adapter's cost: each local Lambda cell beside the same cell run as a server. */
function adapterTable(summaries: CellSummary[]): string | undefined {
  const servers = new Map(summaries.filter((s) => targetKind(s.cell.target).plain).map((s) => [cellKey(s.cell), s]));
  const rows = summaries
    .filter((s) => isLocalHandler(s.cell.target) && s.lambda)
    .flatMap((l) => {
      const server = servers.get(cellKey(makeCell({ ...l.cell, target: 'server' })));
      const sFirst = server?.metrics.firstResponse?.median;
      const sListen = server?.metrics.listen?.median;
      const lFirst = l.metrics.firstResponse?.median;
      if (sFirst === undefined || sListen === undefined || lFirst === undefined) return [];
      return [
        [
          cellLabel(server!.cell),
          ms(sListen),
          ms(sFirst - sListen),
          ms(sFirst),
          ms(l.lambda!.initMs.median),
          ms(l.lambda!.durationMs.median),
          ms(lFirst),
          `${ms(lFirst - sFirst)} (${percent(lFirst - sFirst, sFirst)})`,
        ],
      ];
    });
  if (rows.length === 0) return undefined;
  return markdownTable(
    [
      '',
      'server listen',
      'server first request',
      'server firstResponse',
      'lambda init',
      'lambda invoke',
      'lambda firstResponse',
      'lambda − server',
    ],
    rows,
    ['left', 'right', 'right', 'right', 'right', 'right', 'right', 'right'],
  );
}

export function lambdaSection(context: ReportContext): MarkdownSection | undefined {
  const cells = context.summaries.filter((s) => s.lambda);
  if (cells.length === 0) return undefined;
  const adapters = adapterTable(context.summaries);
  const parts = [
    "What each cell's REPORT line would say (medians; Max Memory Used is the largest peak resident set of its samples). " +
      "For local Lambda cells (`lambda/…`) Init Duration is spawn → the first `GET next` to the runner's Runtime API, " +
      'Duration the event handed out → its response, Billed Duration both, each rounded up to 1 ms; ' +
      'cells with `target=aws-lambda` show what AWS reported.',
    '',
    reportTable(cells),
  ];
  if (adapters) {
    parts.push(
      '',
      '**What the adapter costs** (median ms): the same app as a server (listen, then the first request over a socket) ' +
        'and as a handler behind its adapter (INIT to the first `next`, then the invocation the adapter turns into a request).',
      '',
      adapters,
    );
  }
  return { title: 'Lambda: the REPORT figures', body: parts.join('\n') };
}
