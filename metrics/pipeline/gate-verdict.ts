/**
 * The gate's verdict (coldstart gate): the counts of each side's interleaved rounds, per app and phase, their
 * A/A spread (the noise floor), the threshold each cell is held to (the larger of --threshold and
 * FLOOR_MULTIPLE × the floor), and the markdown a pull request's comment shows (verdict first, the cells that
 * moved, the rest folded). Pure: the rounds themselves are counted by pipeline/gate.ts.
 */
import { markdownCode, markdownText } from '../core/escape.ts';
import { CYCLES_AS_TIME, INSTRUCTIONS_AS_TIME } from '../analyse/proxy-fit.ts';
import { instructionFigures } from '../analyse/instructions.ts';
import type { InstructionMarks } from '../core/samples.ts';

/** A cell's threshold is at least this many times its measured noise floor. */
export const FLOOR_MULTIPLE = 3;
/**
 * The phases of a counted sample, cut at its marks: an app's are boot, startup (start → listen: the app preload
 * marks nothing between), first request and total; a generated cell's split its start-up into import, route
 * registration and listen (analyse/instructions.ts); a Lambda handler's end its start-up at INIT.
 */
export const GATE_PHASES = ['boot', 'startup', 'import', 'registration', 'listen', 'init', 'firstRequest', 'total'] as const;
export type GatePhase = (typeof GATE_PHASES)[number];

/** One counted sample's phases from its cumulative counts at the marks, or undefined when it lacks one it needs. */
export function phasesOf(counts: InstructionMarks): Partial<Record<GatePhase, number>> | undefined {
  if (counts.start === undefined || counts.firstResponse === undefined || (counts.listen ?? counts.init) === undefined) return undefined;
  const { ready, ...figures } = instructionFigures(counts);
  return { ...(ready === undefined ? {} : { startup: ready }), ...figures };
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((x, y) => x - y);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** (max − min) / median of one side's repeated counts: 0 for one count. */
export function spreadOf(values: readonly number[]): number {
  if (values.length < 2) return 0;
  const m = median(values);
  return m === 0 ? 0 : (Math.max(...values) - Math.min(...values)) / m;
}

export interface GateCell {
  readonly app: string;
  readonly phase: GatePhase;
  readonly base: readonly number[];
  readonly head: readonly number[];
  /** --cache-sim: the same phase's estimated cycles, each side's rounds (reported beside the counts; the verdict is on instructions) */
  readonly cycles?: { readonly base: readonly number[]; readonly head: readonly number[] };
}

export interface JudgedCell extends GateCell {
  readonly baseMedian: number;
  readonly headMedian: number;
  /** head / base − 1 */
  readonly change: number;
  /** the larger A/A spread of the two sides */
  readonly floor: number;
  readonly threshold: number;
  readonly regressed: boolean;
  readonly improved: boolean;
}

/**
 * A cell's verdict. A phase is a regression when it grew by more than its threshold of its own count and, given
 * the app's total at base (`totalBase`), by more than that share of the total as well: a small phase (the first
 * request is a tenth of a small app's start) moves by a few tenths of a percent between two counts of the same
 * commit when the machine is busy, which is no change a reader of the total would see.
 */
export function judge(cell: GateCell, threshold: number, totalBase?: number): JudgedCell {
  const baseMedian = median(cell.base);
  const headMedian = median(cell.head);
  const change = baseMedian === 0 ? 0 : headMedian / baseMedian - 1;
  const floor = Math.max(spreadOf(cell.base), spreadOf(cell.head));
  const limit = Math.max(threshold, FLOOR_MULTIPLE * floor);
  // the same share of the app's total, for a phase (the total itself is held to its own count)
  const felt = cell.phase === 'total' || totalBase === undefined || Math.abs(headMedian - baseMedian) > limit * totalBase;
  return {
    ...cell,
    baseMedian,
    headMedian,
    change,
    floor,
    threshold: limit,
    regressed: change > limit && felt,
    improved: change < -limit && felt,
  };
}

export interface GateReport {
  readonly baseRef: string;
  readonly baseCommit: string;
  readonly headCommit: string;
  readonly cells: readonly JudgedCell[];
  readonly rounds: number;
  /** a suspected regression was counted again once on both sides before this verdict */
  readonly confirmed: boolean;
  readonly thresholdOption: number;
  /** --framework-from: the package, its folder in the repository, and the version each side installed it at */
  readonly framework?: { readonly package: string; readonly from: string; readonly base: string; readonly head: string };
}

const pct = (share: number, digits = 2) => `${(share * 100).toFixed(digits)} %`;
const signed = (share: number) => `${share >= 0 ? '+' : '−'}${pct(Math.abs(share))}`;
/** A count in millions, as gate.md's tables show it. */
export const millions = (n: number) => (n / 1e6).toFixed(3);

type TimeFit = typeof INSTRUCTIONS_AS_TIME | typeof CYCLES_AS_TIME;

/** A change in a count as the ms it stands for by a published fit (≈: a model of one machine, not a measurement). */
export function modelledMs(count: number, fit: TimeFit = INSTRUCTIONS_AS_TIME): string {
  const ms = (count / 1e6) * fit.msPerMillion;
  return `${ms >= 0 ? '+' : '−'}${Math.abs(ms).toFixed(1)}`;
}

/** The ≈ ms of a cell: from its estimated cycles when it has them (the closer fit), else from its instructions. */
function cellMs(cell: JudgedCell): string {
  if (!cell.cycles) return modelledMs(cell.headMedian - cell.baseMedian);
  return modelledMs(median(cell.cycles.head) - median(cell.cycles.base), CYCLES_AS_TIME);
}

function cyclesColumns(cell: JudgedCell): string {
  if (!cell.cycles) return '';
  const [base, head] = [median(cell.cycles.base), median(cell.cycles.head)];
  return ` ${millions(base)} | ${millions(head)} | ${signed(base === 0 ? 0 : head / base - 1)} |`;
}

function row(cell: JudgedCell): string {
  const mark = cell.regressed ? 'regression' : cell.improved ? 'improvement' : 'within';
  return (
    `| ${markdownText(cell.app)} | ${cell.phase} | ${millions(cell.baseMedian)} | ${millions(cell.headMedian)} | ` +
    `${signed(cell.change)} |${cyclesColumns(cell)} ${cellMs(cell)} | ${pct(cell.floor, 3)} | ${pct(cell.threshold)} | ${mark} |`
  );
}

function header(cycles: boolean): string[] {
  const counted = cycles ? ' base (M cycles) | head (M cycles) | cycles change |' : '';
  return [
    `| cell | phase | base (M instr.) | head (M instr.) | change |${counted} ≈ ms ✱ | noise floor | threshold | verdict |`,
    `| --- | --- | ---: | ---: | ---: |${cycles ? ' ---: | ---: | ---: |' : ''} ---: | ---: | ---: | --- |`,
  ];
}

/** What the ≈ ms column is, under the tables: the fit of the count it is taken from. */
export function msNote(fit: TimeFit = INSTRUCTIONS_AS_TIME): string {
  const count = fit.count === 'cycles' ? 'estimated cycles' : 'instructions';
  return (
    `✱ ≈ ms: the change in ${count} × ${fit.msPerMillion} ms per million, the fit of ${count} to ` +
    `quiet CPU time over ${fit.cells} published cells on a ${fit.machine} ` +
    `(median error ${fit.medianErrorPct} %, worst ${fit.worst.cell} +${fit.worst.errorPct} %; ${fit.finding}, ${fit.date}): ` +
    'a model of that machine, not a measurement of yours; the verdict is on the instructions.'
  );
}

export function regressionsOf(report: GateReport): JudgedCell[] {
  return report.cells.filter((cell) => cell.regressed);
}

/** The largest noise floor over the cells (the A/A spread reported in the verdict line). */
export function noiseFloorOf(report: GateReport): number {
  return Math.max(0, ...report.cells.map((cell) => cell.floor));
}

/** The largest floor, and where it is when a small phase's floor is above every total's (a total's floor named too). */
function floorText(report: GateReport): string {
  const largest = report.cells.reduce<JudgedCell | undefined>((a, c) => (a && a.floor >= c.floor ? a : c), undefined);
  const totals = report.cells.filter((cell) => cell.phase === 'total');
  const totalFloor = Math.max(0, ...totals.map((cell) => cell.floor));
  if (!largest || largest.phase === 'total' || largest.floor <= totalFloor) return pct(noiseFloorOf(report), 3);
  const of = `of the total${totals.length > 1 ? 's' : ''}: ${pct(totalFloor, 3)}`;
  return `${pct(largest.floor, 3)}, in ${markdownText(largest.app)} ${largest.phase} (${of})`;
}

/** Where the generated cells' framework came from (--framework-from), and the versions when the sides differ in them. */
function frameworkLine(framework: NonNullable<GateReport['framework']>): string {
  const at = (value: string) => markdownCode(value);
  const lengths =
    framework.base.length === framework.head.length
      ? ''
      : ": the versions' lengths differ, and with them the installed paths' (a few instructions of each file's resolution)";
  const versions =
    framework.base === framework.head
      ? `at ${at(framework.base)} on both sides`
      : `at ${at(framework.base)} (base) and ${at(framework.head)} (head)${lengths}`;
  return `Generated cells with ${markdownCode(framework.package)} packed from ${markdownCode(framework.from)} of each commit, ${versions}.`;
}

const CACHE_SIM_TEXT = ', with its cache simulation: estimated cycles = instructions + 10 × L1 misses + 100 × last-level misses';

/** The PR comment: verdict first, then the cells that moved, then the rest folded in <details>. */
export function gateMarkdown(report: GateReport): string {
  const regressions = regressionsOf(report);
  const moved = report.cells.filter((cell) => cell.regressed || cell.improved);
  const rest = report.cells.filter((cell) => !cell.regressed && !cell.improved);
  const ref = markdownText(report.baseRef);
  const cycles = report.cells.some((cell) => cell.cycles);
  const verdict = regressions.length
    ? `**FAIL**: ${regressions.length} regression(s) in instructions: ` +
      regressions.map((cell) => `${markdownText(cell.app)} ${cell.phase} ${signed(cell.change)}`).join(', ')
    : '**PASS**: no phase grew beyond its threshold';
  const lines = [
    `## Cold-start gate: ${verdict}`,
    '',
    `Base ${ref} (${report.baseCommit.slice(0, 12)}) against head ${report.headCommit.slice(0, 12)}, counted in instructions ` +
      `(valgrind${cycles ? CACHE_SIM_TEXT : ''}), ${report.rounds} interleaved round(s) per side. ` +
      'Noise floor (largest A/A spread of a side): ' +
      `${floorText(report)}; a cell's threshold is the larger of --threshold ${pct(report.thresholdOption)} and ` +
      `${FLOOR_MULTIPLE} × its floor.` +
      (report.confirmed ? ' A suspected regression was counted again once on both sides before this verdict.' : ''),
    '',
    ...(report.framework ? [frameworkLine(report.framework), ''] : []),
  ];
  const HEADER = header(cycles);
  if (moved.length) lines.push('### Cells that moved', '', ...HEADER, ...moved.map(row), '');
  lines.push(
    '<details><summary>' + (moved.length ? 'The other cells' : 'All cells') + ` (${rest.length})</summary>`,
    '',
    ...HEADER,
    ...rest.map(row),
    '',
    '</details>',
    '',
    msNote(cycles ? CYCLES_AS_TIME : INSTRUCTIONS_AS_TIME),
    '',
  );
  return lines.join('\n');
}

/** Key figures for $GITHUB_OUTPUT (name=value lines). */
export function gateOutputs(report: GateReport): string {
  const regressions = regressionsOf(report);
  const worst = Math.max(...report.cells.map((cell) => cell.change));
  return [
    `verdict=${regressions.length ? 'fail' : 'pass'}`,
    `regressions=${regressions.length}`,
    `noise-floor=${noiseFloorOf(report).toFixed(6)}`,
    `worst-change=${Number.isFinite(worst) ? worst.toFixed(6) : '0'}`,
    `confirmed=${report.confirmed}`,
    '',
  ].join('\n');
}
