/**
 * verify.md (and `verify`'s stdout): every claim of a published run re-measured here, one line each:
 * "fastify@5000 / node-http@1 cpu.firstResponse: published 12.3× [11.8–12.9], here 13.1× [12.2–14.0];
 * published/here 0.939 [0.880–1.00] within ±15 %: holds", with both machines and their load, the
 * metric judged and why, and the rule a claim is judged by.
 */
import { COUNT_PATH_NOTE, MAX_SAMPLES_ADVICE, VERDICT_LEVEL, type Agreement, type Claim, type RatioEstimate } from '../analyse/verify.ts';
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
  /** why these metrics were judged */
  why: string;
  claims: readonly Claim[];
  /** frameworks not installed here: name → reason (their claims skipped) */
  skipped?: ReadonlyMap<string, string>;
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

/** A margin as a percentage: ±15 %. */
export function marginText(margin: number): string {
  return `±${Number((margin * 100).toPrecision(3))} %`;
}

/** published / here with its interval: 0.939 [0.880–1.00]. */
function agreementText(agreement: Agreement | undefined, metric: MetricName): string {
  if (!agreement) return '–';
  const digits = isInstructionMetric(metric) ? 4 : 3;
  const bare = (value: number) => ratioText(value, digits).slice(0, -1);
  return `${bare(agreement.ratio)} [${bare(agreement.interval.low)}–${bare(agreement.interval.high)}]`;
}

/** The verdict with what it rests on: for an undetermined claim, how many samples would likely decide it. */
export function verdictText(claim: Claim): string {
  if (claim.verdict === 'not measured') return `not measured (${claim.why})`;
  if (claim.verdict === 'does not hold' && isInstructionMetric(claim.metric)) return `does not hold (${COUNT_PATH_NOTE})`;
  if (claim.verdict !== 'undetermined') return claim.verdict;
  const needed = claim.samplesNeeded;
  if (needed === 'none' || needed === undefined)
    return (
      `undetermined — the published run's own spread is too wide to decide within ${marginText(claim.margin)} ` +
      '(no number of samples here would; a wider --margin may)'
    );
  if (needed > MAX_SAMPLES_ADVICE) return `undetermined — more samples needed (more than ${MAX_SAMPLES_ADVICE} a cell)`;
  return `undetermined — more samples needed (about ${needed} a cell: --samples ${needed})`;
}

/** One line per claim, as stdout shows it. */
export function claimLine(claim: Claim): string {
  const what = `${sliceLabel(claim.cell)} / ${sliceLabel(claim.floor)} ${claim.metric}`;
  if (claim.verdict === 'not measured') return `${what}: ${verdictText(claim)}`;
  const [published, here] = [claim.published, claim.here].map((e) => estimateText(e, claim.metric));
  const agreement = agreementText(claim.agreement, claim.metric);
  const margin = marginText(claim.margin);
  return `${what}: published ${published}, here ${here}; published/here ${agreement} within ${margin}: ${verdictText(claim)}`;
}

/** The count line: "12 of 14 claims hold here, 1 does not, 1 undetermined". */
export function verdictCounts(claims: readonly Claim[]): string {
  const count = (verdict: Claim['verdict']) => claims.filter((c) => c.verdict === verdict).length;
  const rest = [
    count('does not hold') && `${count('does not hold')} ${count('does not hold') === 1 ? 'does' : 'do'} not`,
    count('undetermined') && `${count('undetermined')} undetermined`,
    count('not measured') && `${count('not measured')} not measured`,
  ].filter(Boolean);
  return `${count('holds')} of ${claims.length} claims hold here${rest.length ? `, ${rest.join(', ')}` : ''}`;
}

export function verifyMarkdown(report: VerifyReport): string {
  const { claims } = report;
  const level = `${Math.round(VERDICT_LEVEL * 100)} %`;
  const margins = [...new Set(claims.map((c) => marginText(c.margin)))].join(', ') || '–';
  const lines = [
    `# Verification of ${displayPath(report.published.dir)}`,
    '',
    `${verdictCounts(claims)}${report.interrupted ? ' (interrupted: only the finished samples)' : ''}.`,
    '',
    `A claim is a cell's median over the floor's (${sliceLabel(report.floor)}) on one metric, in the published run and here; ` +
      `every cell is ${markdownText(cellLabel(report.floor))} but for its framework and routes. ` +
      `The verdict is on published / here, the ratio of the two ratios, with its ${level} percentile-bootstrap interval ` +
      "(all four cells' samples resampled; two one-sided tests at 5 %), against a margin of " +
      `${margins} (for ±m: from 1/(1 + m) to 1 + m): it **holds** when the whole interval lies inside the margin, ` +
      '**does not hold** when it lies wholly outside, and is **undetermined** otherwise (more samples needed: how many is said). ' +
      "Each side's ratio is shown with its own interval at the same level. " +
      'Ratios, not milliseconds, are what can transfer between machines.',
    '',
    ...[...(report.skipped ?? [])].map(([name, why]) => `- ${markdownText(name)}: skipped, ${markdownText(why)}`),
    `- published: ${hostText(report.published.meta)}`,
    `- here: ${hostText(report.here.meta)}`,
    `- judged on ${report.metrics.join(', ')}: ${markdownText(report.why)}`,
    ...report.metrics.map((m) => `- ${m}: ${metricDescription(m)}`),
    '',
    markdownTable(
      ['claim', 'metric', 'published', 'here', 'published / here', 'margin', 'verdict'],
      claims.map((c) => [
        `${sliceLabel(c.cell)} / ${sliceLabel(c.floor)}`,
        c.metric,
        estimateText(c.published, c.metric),
        estimateText(c.here, c.metric),
        agreementText(c.agreement, c.metric),
        marginText(c.margin),
        verdictText(c) === c.verdict ? `**${c.verdict}**` : markdownText(verdictText(c)),
      ]),
      ['left', 'left', 'right', 'right', 'right', 'right', 'left'],
    ),
    '',
  ];
  return lines.join('\n');
}
