/**
 * `verify PUBLISHED`, the use case: re-measure a slice of a published run on this machine through the
 * run pipeline (the same plan, sampler and ports as `run`), then judge, claim by claim, whether the
 * published ratios to the floor hold here within a margin (analyse/verify.ts: an equivalence test on
 * published / here). Timed claims are on wall time, or on CPU time when either run was loaded; the
 * new samples and the report are a run folder (results/<timestamp>/ unless `out`), and verify.md
 * beside them says every claim and which metric was judged, and why.
 */
import path from 'node:path';
import type { CellSummary } from '../analyse/aggregate.ts';
import { DEFAULT_COMPARE_METRIC, isInstructionMetric, statsOf, type MetricName } from '../analyse/compare.ts';
import { COUNT_SAME_PATH_EFFECT, defaultSlice, floorOf, judgeClaims, type Claim } from '../analyse/verify.ts';
import type { LoadSummary } from '../core/load.ts';
import { COUNTED_MEASURE, TARGETS, TIMED_MEASURE, type Measure, type Target } from '../core/dimensions.ts';
import { cellKey, cellLabel, type Cell } from '../core/cell.ts';
import { UsageError } from '../core/errors.ts';
import { EXIT_UNDETERMINED, EXIT_VERDICT } from '../core/exit-codes.ts';
import { REFERENCE_FRAMEWORK } from '../core/lambda-platform.ts';
import { writeOwnedFile } from '../store/files.ts';
import { listsOfCell } from '../core/cell-space.ts';
import { DEFAULT_SOURCE, runSpec, type CellSpec, type GeneratedSource, type RunSpec } from '../core/run-spec.ts';
import { loadRun } from '../report/write.ts';
import { uninstalledFrameworks } from '../plan/selection.ts';
import { verifyMarkdown, VERIFY_FILE } from '../report/verify-md.ts';
import type { Deps } from './ports.ts';

export { METRIC_NAMES, parseMetricName } from '../analyse/compare.ts';
export { claimLine, verdictCounts } from '../report/verify-md.ts';
export { COUNT_MARGIN, DEFAULT_MARGIN } from '../analyse/verify.ts';
import { exitCodeOf, runPipeline, type RunResult } from './run.ts';
import { targetKind, measureKind } from '../core/kinds.ts';

/** Exit code of a verification in which some claim does not hold here (or could not be measured): a verdict, as compare --fail-above's. */
export const EXIT_CLAIM_FAILED = EXIT_VERDICT;
/** Exit code of a verification in which no claim fails but some are undetermined: more samples are needed (verify.md says how many). */
export { EXIT_UNDETERMINED } from '../core/exit-codes.ts';
/**
 * Timed samples per cell when none are asked for: the fewest with which the simulation of
 * test/unit/verify-power.test.ts (a published run of 10 samples a cell, CPU-time noise of
 * 2026-11-27-seed-table) catches ×0.8 and ×1.25 in at least 80 % of trials and holds an unchanged
 * ratio in at least 95 % (at 15: 86–88 % and 98 % of 400 trials; at 10, in a 300-trial run: 80–82 % and 95 %).
 */
export const DEFAULT_VERIFY_SAMPLES = 15;
/** Timed samples per cell with --quick: a third of the time, more claims undetermined (exit 10) and a ×0.8 caught less often. */
export const QUICK_VERIFY_SAMPLES = 5;
/** Wall time at first response: what the pages show, judged when neither run was loaded. */
export const WALL_METRIC: MetricName = DEFAULT_COMPARE_METRIC;
/** The child's CPU time at first response: judged by default when either run was loaded (load inflates wall times, less CPU times). */
export const CPU_METRIC: MetricName = 'cpu.firstResponse';
/** The metrics a timed run's claims may be on by default (one is chosen by the load: timedMetricOf). */
export const DEFAULT_TIME_METRICS: readonly MetricName[] = [WALL_METRIC, CPU_METRIC];
export const DEFAULT_COUNT_METRICS: readonly MetricName[] = ['instructions'];

export interface VerifyOptions {
  /** the published run folder */
  published: string;
  /** the command line, for meta.json */
  command: string;
  /** keep only these frameworks of the slice (the floor stays) */
  frameworks?: readonly string[];
  /** keep only these route counts of the slice (the floor stays) */
  routes?: readonly number[];
  /** which of the run's cells: timed or counted (default: timed when it has them) */
  measure?: Measure;
  /** samples per cell (default 5 timed, 1 counted) */
  samples?: number;
  metrics?: readonly MetricName[];
  /** the equivalence margin, a share (default 0.15 timed, COUNT_MARGIN counted) */
  margin?: number;
  /** the new run folder (default results/<timestamp>/) */
  out?: string;
  /** too little time: QUICK_VERIFY_SAMPLES timed samples a cell and each framework at its largest route count only */
  quick?: boolean;
  /** a Lambda run's runtime line `node` and the node of server cells */
  node?: string;
}

export interface VerifyResult {
  run: RunResult;
  claims: Claim[];
  /** frameworks of the slice whose packages are not installed here: name → reason; their claims are skipped */
  skipped: Map<string, string>;
  /** the metrics judged, and why these */
  judged: { metrics: readonly MetricName[]; why: string };
  markdown: string;
  /** 0 when every claim holds; else the run's (interrupted, failed samples), EXIT_CLAIM_FAILED or EXIT_UNDETERMINED */
  exitCode: number;
}

/** The cells of a run that differ from `floor` only in framework and route count. */
function besideFloor(summaries: readonly CellSummary[], floor: Cell): CellSummary[] {
  const rest = (cell: Cell) => cellKey({ ...cell, framework: floor.framework, routes: floor.routes });
  return summaries.filter((s) => rest(s.cell) === cellKey(floor));
}

/** What is verified: the floor, the slice and the metrics, from the published run and the options. */
export function planVerification(summaries: readonly CellSummary[], counted: readonly CellSummary[], options: VerifyOptions) {
  const measure = options.measure ?? (summaries.length ? TIMED_MEASURE : COUNTED_MEASURE);
  const kind = measureKind(measure);
  // the hello-world reference measured beside Lambda cells is no framework to make claims on
  const pool = (kind.counted ? counted : summaries).filter((s) => s.cell.framework !== REFERENCE_FRAMEWORK);
  if (!pool.length) throw new UsageError(`--measure ${measure}: ${options.published} has no ${kind.noun} cells`);
  // the default metrics the run recorded: Lambda cells and older runs have no CPU time at first response
  const recorded = (m: MetricName) => pool.some((summary) => statsOf(summary, m));
  const defaults = kind.counted ? DEFAULT_COUNT_METRICS : DEFAULT_TIME_METRICS.filter(recorded);
  const metrics = options.metrics ?? (defaults.length ? defaults : DEFAULT_TIME_METRICS);
  const wrong = metrics.filter((m) => isInstructionMetric(m) !== kind.counted);
  if (wrong.length) throw new UsageError(`--metric ${wrong.join(',')}: not a metric of ${kind.noun} cells`);
  if (kind.counted && options.margin !== undefined && options.margin < COUNT_SAME_PATH_EFFECT)
    throw new UsageError(
      `--margin ${percentText(options.margin)}: counts from another checkout differ by up to ${percentText(COUNT_SAME_PATH_EFFECT)} ` +
        "even at a path of the same length (more at a longer one): a narrower margin on counts fails claims on the checkout's path alone",
    );
  const floor = floorOf(pool, metrics[0]!);
  if (!floor) throw new UsageError(`${options.published} recorded no ${metrics[0]} to verify`);
  if (!targetKind(floor.cell.target).local)
    throw new UsageError(`${options.published} holds figures imported from AWS: they cannot be re-measured here`);
  if (floor.cell.source === 'app')
    throw new UsageError(`${options.published} measured the user's own apps (measure): verify re-measures generated cells`);
  const beside = besideFloor(pool, floor.cell);
  for (const [option, asked, has] of [
    ['--frameworks', options.frameworks, new Set(beside.map((s) => s.cell.framework))],
    ['--routes', options.routes, new Set(beside.map((s) => s.cell.routes))],
  ] as const) {
    const missing = (asked ?? []).filter((v) => !(has as Set<string | number>).has(v));
    if (missing.length) throw new UsageError(`${option}: ${missing.join(', ')} not in the published run (it has ${[...has].join(', ')})`);
  }
  const chosen = beside.filter(
    (s) =>
      (!options.frameworks || options.frameworks.includes(s.cell.framework)) && (!options.routes || options.routes.includes(s.cell.routes)),
  );
  const slice = defaultSlice([...chosen, floor], floor.cell);
  // with --routes the user picked the route counts: every one of them, not only the smallest and largest
  const all = options.routes ? [...new Map([floor, ...chosen].map((s) => [cellKey(s.cell), s.cell])).values()] : slice;
  // --quick: the floor and each framework at its largest route count (where route counts matter most)
  const largest = (c: Cell) => c.routes === Math.max(...all.filter((o) => o.framework === c.framework).map((o) => o.routes));
  const cells = options.quick && !options.routes ? all.filter((c) => cellKey(c) === cellKey(floor.cell) || largest(c)) : all;
  if (cells.length < 2) throw new UsageError(`nothing to verify: the slice holds only the floor (${cellLabel(floor.cell)})`);
  return { measure, metrics, floor: floor.cell, cells };
}

function percentText(share: number): string {
  return `${Number((share * 100).toPrecision(3))} %`;
}

/**
 * The metrics judged: those of --metric; else counts; else, for timed claims, CPU time when either
 * run was loaded (its meta.json says busy) and the published run recorded it, wall time otherwise.
 */
export function judgedMetrics(
  candidates: readonly MetricName[],
  options: Pick<VerifyOptions, 'metrics'>,
  load: { published: LoadSummary | undefined; here: LoadSummary | undefined },
): { metrics: readonly MetricName[]; why: string } {
  if (options.metrics) return { metrics: options.metrics, why: 'chosen with --metric' };
  if (candidates.every(isInstructionMetric)) return { metrics: candidates, why: 'counted cells' };
  const loaded = [load.published?.busy && 'the published run', load.here?.busy && 'this run'].filter(Boolean).join(' and ');
  const hasCpu = candidates.includes(CPU_METRIC);
  if (loaded && hasCpu) return { metrics: [CPU_METRIC], why: `CPU time: ${loaded} ran on a loaded machine, which inflates wall times` };
  const wall = candidates.includes(WALL_METRIC) ? WALL_METRIC : candidates[0]!;
  if (loaded)
    return { metrics: [wall], why: `wall time, though ${loaded} ran on a loaded machine: the published run recorded no CPU time` };
  return { metrics: [wall], why: 'wall time: neither run was loaded (on a loaded machine, CPU time is judged)' };
}

/**
 * The spec of the re-measurement: the published run's settings, on the slice's frameworks and route
 * counts, every other dimension at the floor's value (core/cell-space.ts listsOfCell: each planned row
 * of the table, so a claim on a cell of any dimension is re-measured at that cell).
 */
export function verifySpec(
  published: RunSpec['sampling'] | undefined,
  floor: Cell,
  cells: readonly Cell[],
  options: VerifyOptions,
): RunSpec {
  const counted = measureKind(floor.measure).counted;
  const samples = options.samples ?? (counted ? 1 : options.quick ? QUICK_VERIFY_SAMPLES : DEFAULT_VERIFY_SAMPLES);
  const lists = listsOfCell(floor);
  // the generated source's lists (its variants, shapes, schemas…) and the cells' (CellSpec's), as the table names them
  const {
    frameworks: _frameworks,
    routes: _routes,
    ...sourceLists
  } = Object.fromEntries(Object.entries(lists).filter(([name]) => name in DEFAULT_SOURCE));
  const cellLists = Object.fromEntries(Object.entries(lists).filter(([name]) => !(name in DEFAULT_SOURCE)));
  return runSpec({
    command: options.command,
    source: {
      kind: 'generated',
      frameworks: [...new Set(cells.map((c) => c.framework))],
      routes: [...new Set(cells.map((c) => c.routes))].sort((a, b) => a - b),
      ...(sourceLists as Partial<GeneratedSource>),
    } as GeneratedSource,
    cells: {
      ...(cellLists as Partial<CellSpec>),
      lambdaReference: false,
      ...(options.node ? { node: options.node } : {}),
    },
    sampling: {
      samples,
      countSamples: samples,
      ...(published ? { warmup: published.warmup, order: published.order, seed: published.seed, timeoutMs: published.timeoutMs } : {}),
      // first hits come after the timed answer: they change no claim
      firstHits: 0,
    },
    output: { out: options.out, allowFailures: true },
  });
}

/**
 * The verification of a published run with what is installed here: the claims of frameworks whose
 * packages are not installed are skipped (name → the reason, with its install hint) and the rest are
 * planned as planVerification plans them, the floor chosen among the installed frameworks.
 */
function isLocalTarget(target: string): target is Target {
  return (TARGETS as readonly string[]).includes(target);
}

export async function installedPlan(summaries: readonly CellSummary[], counted: readonly CellSummary[], options: VerifyOptions) {
  const skipped = new Map<string, string>();
  for (const target of new Set([...summaries, ...counted].map((s) => s.cell.target))) {
    // figures imported from AWS need no package here (planVerification refuses them)
    if (!isLocalTarget(target)) continue;
    const names = [...summaries, ...counted].filter((s) => s.cell.target === target).map((s) => s.cell.framework);
    for (const [name, why] of await uninstalledFrameworks([...new Set(names)], target)) skipped.set(name, why);
  }
  const asked = (options.frameworks ?? []).find((name) => skipped.has(name));
  if (asked) throw new UsageError(`--frameworks ${asked}: ${skipped.get(asked)}`);
  const installed = (list: readonly CellSummary[]) => list.filter((s) => !skipped.has(s.cell.framework));
  const rest = [...installed(summaries), ...installed(counted)];
  if (skipped.size && !rest.some((s) => s.cell.framework !== REFERENCE_FRAMEWORK))
    throw new UsageError(`nothing to verify here: ${[...skipped.values()].join('; ')}`);
  return { plan: planVerification(installed(summaries), installed(counted), options), skipped };
}

export async function verifyPipeline(options: VerifyOptions, deps: Deps): Promise<VerifyResult> {
  const published = loadRun(path.resolve(options.published));
  const { plan, skipped } = await installedPlan(published.summaries, published.counted, options);
  const spec = verifySpec(published.meta?.spec.sampling as RunSpec['sampling'] | undefined, plan.floor, plan.cells, options);
  const run = await runPipeline(spec, deps);
  const here = run.recorded ? loadRun(run.dir) : undefined;
  const hereSummaries = here ? (measureKind(plan.measure).counted ? here.counted : here.summaries) : [];
  const pool = measureKind(plan.measure).counted ? published.counted : published.summaries;
  const judged = judgedMetrics(plan.metrics, options, { published: published.meta?.load, here: here?.meta?.load });
  const claims = judgeClaims(plan.cells, plan.floor, pool, hereSummaries, judged.metrics, options.margin);
  const markdown = verifyMarkdown({
    published: { dir: options.published, meta: published.meta },
    here: { dir: run.dir, meta: here?.meta },
    floor: plan.floor,
    metrics: judged.metrics,
    why: judged.why,
    claims,
    skipped,
    interrupted: run.interrupted,
  });
  if (run.recorded) writeOwnedFile(run.dir, VERIFY_FILE, markdown);
  const runCode = exitCodeOf(run, false);
  return { run, claims, skipped, judged, markdown, exitCode: runCode || verdictExitCode(claims) };
}

/** 0 when every claim holds; EXIT_CLAIM_FAILED when one does not hold or was not measured; else EXIT_UNDETERMINED. */
export function verdictExitCode(claims: readonly Claim[]): number {
  if (claims.some((c) => c.verdict === 'does not hold' || c.verdict === 'not measured')) return EXIT_CLAIM_FAILED;
  return claims.some((c) => c.verdict === 'undetermined') ? EXIT_UNDETERMINED : 0;
}
