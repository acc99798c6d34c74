/**
 * What a target and a measure are and do, chosen once from a cell's value: every layer asks these
 * objects (`targetKind(cell.target).handler`, `measureKind(cell.measure).counted`) instead of comparing
 * the names, so a new target or measure is one entry here (and its row in dimensions.ts) rather than a
 * branch in every module that tells them apart. The sampling side of a target (how a sample starts and
 * is read) is measure/targets/, chosen from `TargetKind.sampler`.
 *
 * test/unit/kinds.test.ts fails on a comparison with a target's or a measure's name outside this module.
 */
// dimensions.ts's value lists are checked against these records (test/unit/kinds.test.ts): the table
// imports this module (its target row's label asks it), so this one imports nothing of the project

export interface TargetKind {
  readonly name: string;
  /**
   * the generators' folder its file comes from (generators/<target>/); a cell imported from AWS
   * names the Lambda file it ran, so its file is the Lambda one
   */
  readonly fileTarget: string;
  /** whether it is measured on this machine (false: figures imported from AWS's REPORT lines) */
  readonly local: boolean;
  /**
   * a Lambda handler (`exports.handler` behind an adapter, or the user's), ready at the end of INIT
   * under a Runtime API; false: an HTTP server, ready when it listens
   */
  readonly handler: boolean;
  /** the mark a local sample's readiness is: the server's listen, or the end of a handler's INIT */
  readonly ready: 'listen' | 'init';
  /** Lambda-shaped: its report answers Lambda's questions (the hint to try a Lambda run is not shown) */
  readonly lambdaShaped: boolean;
  /** the run's default target: labels and generated paths leave it out */
  readonly plain: boolean;
  /** a handler's init modes (lazy, eager) multiply its cells; a server has no init mode */
  readonly initModes: boolean;
  /** the sampler of measure/targets/ that runs it; absent: it is not run here */
  readonly sampler?: 'server' | 'lambda' | 'lambda-web';
  /**
   * its generated files are another target's, rewritten (generators/web.ts): the generators of that
   * target write them, with the probe that listens where this target says
   */
  readonly derivedFrom?: string;
  /**
   * a platform with fixed resources (Lambda Web Functions: 2 vCPUs, 2 GB an environment): every sample
   * runs in a cgroup with these limits, whatever --lambda-memory says (its cells have no memory size of their own)
   */
  readonly caps?: { readonly memoryMB: number; readonly cpus: number };
  /** the platform's limit on the time to ready (Web Functions: 10 s to listen), ms; a sample over it fails */
  readonly readyLimitMs?: number;
  /** the runtime line its cells run on, the only one the platform offers (Web Functions: nodejs24.x) */
  readonly runtimeLine?: string;
}

const server: TargetKind = {
  name: 'server',
  fileTarget: 'server',
  local: true,
  handler: false,
  ready: 'listen',
  lambdaShaped: false,
  plain: true,
  initModes: false,
  sampler: 'server',
};
const lambda: TargetKind = {
  name: 'lambda',
  fileTarget: 'lambda',
  local: true,
  handler: true,
  ready: 'init',
  lambdaShaped: true,
  plain: false,
  initModes: true,
  sampler: 'lambda',
};
/**
 * Lambda Web Functions (docs.aws.amazon.com/lambda/latest/dg/web-functions*, read 2026-12-05): the server
 * itself, listening on AWS_LAMBDA_HTTP_ENDPOINT within 10 s, on nodejs24.x, arm64, 2 vCPUs and 2 GB.
 */
const lambdaWeb: TargetKind = {
  name: 'lambda-web',
  fileTarget: 'lambda-web',
  local: true,
  handler: false,
  ready: 'listen',
  lambdaShaped: true,
  plain: false,
  initModes: false,
  sampler: 'lambda-web',
  derivedFrom: 'server',
  caps: { memoryMB: 2048, cpus: 2 },
  readyLimitMs: 10_000,
  runtimeLine: 'nodejs24.x',
};
const awsLambda: TargetKind = {
  name: 'aws-lambda',
  fileTarget: 'lambda',
  local: false,
  handler: true,
  ready: 'init',
  lambdaShaped: true,
  plain: false,
  initModes: true,
};

export const TARGET_KINDS: Readonly<Record<string, TargetKind>> = {
  server,
  lambda,
  [lambdaWeb.name]: lambdaWeb,
  [awsLambda.name]: awsLambda,
};

/** The target named `target` (a cell's, an app's kind, a run's); an unknown name is a bug. */
export function targetKind(target: string): TargetKind {
  const kind = Object.hasOwn(TARGET_KINDS, target) ? TARGET_KINDS[target] : undefined;
  if (!kind) throw new Error(`unknown target ${JSON.stringify(target)}`);
  return kind;
}

/** The one runtime line of Lambda Web Functions (web-functions-configuration-architecture, read 2026-12-05). */
export const WEB_FUNCTION_RUNTIME = lambdaWeb.runtimeLine!;

/**
 * Whether a cell's label leaves its target out: a local Lambda cell's file (lambda/…, lambda-web/…) says it, and
 * a user's handler (--handler) is one; a user's server run as a Web Function says it.
 */
export function targetInName(target: string, cell: Readonly<Record<string, unknown>>): boolean {
  const kind = targetKind(target);
  return !kind.plain && kind.local && (cell.source !== 'app' || kind.handler);
}

/** Whether `target` is a Lambda handler measured on this machine (the cells the Lambda estimate is made for). */
export const isLocalHandler = (target: string): boolean => targetKind(target).handler && targetKind(target).local;

export interface MeasureKind {
  readonly name: string;
  /** counted under valgrind (instructions, deterministic) rather than timed */
  readonly counted: boolean;
  /** the word for its cells */
  readonly noun: 'timed' | 'counted';
  /** the unit of a figure a bisect or a gate reads (the CPU time of the first response, or its instructions) */
  readonly unit: string;
  /** a figure in that unit, as text */
  show(value: number): string;
}

const timed: MeasureKind = {
  name: 'time',
  counted: false,
  noun: 'timed',
  unit: 'ms of CPU time',
  show: (v) => v.toFixed(1),
};
const counted: MeasureKind = {
  name: 'instructions',
  counted: true,
  noun: 'counted',
  unit: 'instructions',
  show: (v) => Math.round(v).toLocaleString('en-US'),
};

export const MEASURE_KINDS: Readonly<Record<string, MeasureKind>> = { [timed.name]: timed, [counted.name]: counted };

/** The measure named `measure`; an unknown name is a bug. */
export function measureKind(measure: string): MeasureKind {
  const kind = Object.hasOwn(MEASURE_KINDS, measure) ? MEASURE_KINDS[measure] : undefined;
  if (!kind) throw new Error(`unknown measure ${JSON.stringify(measure)}`);
  return kind;
}

/** The name of the counted figure (a total of instructions) where a metric, a basis or a measure names it. */
export const COUNTED_NAME = counted.name;
