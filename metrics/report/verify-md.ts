/**
 * verify.md (and `verify`'s stdout): every claim of a published run re-measured here, one line each:
 * "fastify@5000 / node-http@1 firstResponse: published 12.3× [11.8–12.9], here 13.1× [12.2–14.0]: holds",
 * with both machines and their load, and the rule a claim is judged by.
 */
import type { Claim, RatioEstimate } from '../analyse/verify.ts';
import { isInstructionMetric, metricDescription, type MetricName } from '../analyse/compare.ts';
import { cellLabel, type Cell } from '../core/cell.ts';
import { displayPath } from '../core/display.ts';
import { markdownTable } from '../core/format.ts';
import { loadText } from '../core/load.ts';
import type { RunMeta } from '../core/meta.ts';
import { markdownText } from '../core/escape.ts';

export const VERIFY_FILE = 'verify.md';

export interface VerifyReport {
  published: { dir: string; meta: RunMeta | undefined };
  here: { dir: string; meta: RunMeta | undefined };
  floor: Cell;
  metrics: readonly MetricName[];
  claims: readonly Claim[];
  interrupted: boolean;
}

/** A ratio with `digits` significant figures or at least one decimal: 12.3×, 1.02×, 250.4× (counts: 4 figures, 1.003×). */
export function ratioText(ratio: number, digits = 3): string {
  return `${ratio >= 10 ** (digits - 1) ? ratio.toFixed(1) : ratio.toPrecision(digits)}×`;
}

function estimateText(estimate: RatioEstimate | undefined, metric: MetricName): string {
  if (!estimate) return '–';
  const digits = isInstructionMetric(metric) ? 4 : 3;
  const { low, high } = estimate.interval;
  const bare = (value: number) => ratioText(value, digits).slice(0, -1);
  return `${ratioText(estimate.ratio, digits)} [${bare(low)}–${bare(high)}]`;
}

function hostText(meta: RunMeta | undefined): string {
  if (!meta) return 'no meta.json';
  const m = meta.machine;
  const load = meta.load ? `; ${loadText(meta.load)}` : '';
  return `${m.cpu}, ${m.cores} cores, ${m.os}, node ${meta.runner.node}${load}`;
}

/** A cell of the slice as the claims name it: framework@routes (every other dimension is the floor's, said once). */
export function sliceLabel(cell: Cell): string {
  return `${cell.framework}@${cell.routes}`;
}

/** One line per claim, as stdout shows it. */
export function claimLine(claim: Claim): string {
  const what = `${sliceLabel(claim.cell)} / ${sliceLabel(claim.floor)} ${claim.metric}`;
  if (claim.verdict === 'not measured') return `${what}: not measured (${claim.why})`;
  const [published, here] = [claim.published, claim.here].map((e) => estimateText(e, claim.metric));
  return `${what}: published ${published}, here ${here}: ${claim.verdict}`;
}

export function verifyMarkdown(report: VerifyReport): string {
  const { claims } = report;
  const holding = claims.filter((c) => c.verdict === 'holds').length;
  const lines = [
    `# Verification of ${displayPath(report.published.dir)}`,
    '',
    `${holding} of ${claims.length} claims hold here${report.interrupted ? ' (interrupted: only the finished samples)' : ''}.`,
    '',
    `A claim is a cell's median over the floor's (${sliceLabel(report.floor)}) on one metric, in the published run and here; ` +
      `every cell is ${markdownText(cellLabel(report.floor))} but for its framework and routes. ` +
      "Each ratio has a 95 % percentile-bootstrap interval over both cells' samples; a claim holds when the two intervals overlap " +
      '(instruction counts: each widened by a quarter of a per cent on either side). ' +
      'Ratios, not milliseconds, are what can transfer between machines.',
    '',
    `- published: ${hostText(report.published.meta)}`,
    `- here: ${hostText(report.here.meta)}`,
    ...report.metrics.map((m) => `- ${m}: ${metricDescription(m)}`),
    '',
    markdownTable(
      ['claim', 'metric', 'published', 'here', 'verdict'],
      claims.map((c) => [
        `${sliceLabel(c.cell)} / ${sliceLabel(c.floor)}`,
        c.metric,
        estimateText(c.published, c.metric),
        estimateText(c.here, c.metric),
        c.verdict === 'not measured' ? markdownText(`not measured: ${c.why}`) : `**${c.verdict}**`,
      ]),
      ['left', 'left', 'right', 'right', 'left'],
    ),
    '',
  ];
  return lines.join('\n');
}
