/**
 * What `lambda:run` will do, before it does it: the plan of a run (the functions it deploys, their names,
 * the invocations) and its estimated cost from the tool's own cost model, in the lines the dry run prints and
 * a real run prints before it starts. Nothing here calls AWS or loads its SDK, so `lambda:run --dry-run` works
 * without the SDK installed (the CLI imports this module statically; pipeline/lambda-run.ts, which needs the
 * SDK, only for a real run, through withAwsSdk).
 */
import { toolCommand } from '../core/speak.ts';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { costPerMillion } from '../analyse/cost.ts';
import { displayPath } from '../core/display.ts';
import { UsageError } from '../core/errors.ts';
import { deployedName, MAX_FUNCTION_NAME, RUN_ID, RUN_TAG } from '../core/function-name.ts';
import { PRICE_PER_GB_SECOND, REQUEST_PRICE_PER_MILLION, type Architecture, type LambdaRuntimeLine } from '../core/lambda-platform.ts';
import type { RecordedLambdaRunInput } from '../core/meta-spec.ts';
import { SAMPLES_FILE } from '../core/samples.ts';
import { checkOutDir } from '../store/out-dir.ts';
import { RUN_FOLDER } from '../store/meta-file.ts';
import { checkRole, describeInput, type PackagedFunctionEntry } from './lambda-run-inputs.ts';
import type { PlanEstimates } from './lambda-run-estimate.ts';

/** The timeout of every function: API Gateway's, as the package's template has it. */
export const FUNCTION_TIMEOUT_S = 30;
/** What the plan's cost assumes a cold start bills (INIT and the first invocation), ms, for a cell with no estimate (`--estimate`). */
export const ASSUMED_BILLED_MS = 1000;

export interface LambdaRunOptions {
  /** the functions to deploy, and the input as meta.json records it (pipeline/lambda-run-inputs.ts) */
  input: { packaged: PackagedFunctionEntry[]; recorded: RecordedLambdaRunInput };
  out: string;
  region: string;
  /** the functions' execution role, or undefined with createRole */
  role?: string;
  createRole: boolean;
  memories: number[];
  architectures: Architecture[];
  runtimes: LambdaRuntimeLine[];
  /** cold starts per cell */
  samples: number;
  keep: boolean;
  dryRun: boolean;
  /** functions worked on at once */
  parallel: number;
  /** how long a function may take to become Active, or an update to go through, s */
  readyTimeoutS: number;
  /** the command line, for meta.json */
  command: string;
  /** the run's id (default: 8 random hex digits) */
  runId?: string;
  /** how long a REPORT line missing from a log tail is looked for in CloudWatch Logs, s (default DEFAULT_LOGS_WAIT_S; 0: asked once) */
  logsWaitS?: number;
  /** how long CreateFunction is retried while IAM propagates the created role, s (default DEFAULT_ROLE_WAIT_S) */
  roleWaitS?: number;
  /** `--estimate RUN`: a local run whose estimates price the plan (lambda-run-estimate.ts); without it, ASSUMED_BILLED_MS */
  estimates?: PlanEstimates;
}

/** One function the run deploys: a packaged function on one runtime line and architecture. */
export interface PlannedFunction {
  packaged: PackagedFunctionEntry;
  deployed: string;
  runtime: LambdaRuntimeLine;
  architecture: Architecture;
  /** the run folder its samples go to */
  out: string;
}

export interface LambdaRunPlan {
  runId: string;
  functions: PlannedFunction[];
  memories: number[];
  samples: number;
  invocations: number;
  /** the estimate of the dry run, $: each cold start billed its cell's estimate (else ASSUMED_BILLED_MS), and at worst the timeout */
  dollars: { expected: number; worst: number };
  /** how the cells (function × memory size) were priced: from the run's estimate, or at ASSUMED_BILLED_MS */
  priced: { estimated: number; assumed: number; billedMs: number[]; builds: string[] };
}

/** The plan of a run: what is created, how many invocations, and its cost. */
export function planRun(options: LambdaRunOptions, packaged: PackagedFunctionEntry[]): LambdaRunPlan {
  const runId = options.runId ?? randomBytes(4).toString('hex');
  if (!RUN_ID.test(runId)) throw new UsageError(`--run-id must be 1 to 16 lowercase letters or digits, got ${runId}`);
  const combos = options.runtimes.flatMap((runtime) => options.architectures.map((architecture) => ({ runtime, architecture })));
  const out = path.resolve(options.out);
  const functions = combos.flatMap(({ runtime, architecture }, i) =>
    packaged.map((entry) => {
      const deployed = deployedName(entry.name, runId, combos.length > 1 ? i + 1 : undefined);
      if (deployed.length > MAX_FUNCTION_NAME) {
        throw new UsageError(
          `function name ${deployed} is longer than Lambda's ${MAX_FUNCTION_NAME} characters: package fewer routes or a shorter --run-id`,
        );
      }
      return {
        packaged: entry,
        deployed,
        runtime,
        architecture,
        out: combos.length > 1 ? path.join(out, `${runtime}-${architecture}`) : out,
      };
    }),
  );
  const invocations = functions.length * options.memories.length * options.samples;
  let expected = 0;
  let worst = 0;
  const priced: LambdaRunPlan['priced'] = { estimated: 0, assumed: 0, billedMs: [], builds: [] };
  for (const fn of functions) {
    for (const memoryMB of options.memories) {
      const price = { memoryMB, pricePerGBs: PRICE_PER_GB_SECOND[fn.architecture] };
      const estimate = options.estimates?.of(fn, memoryMB);
      if (estimate) {
        priced.estimated += 1;
        priced.billedMs.push(estimate.billedMs);
        if (!priced.builds.includes(estimate.build)) priced.builds.push(estimate.build);
      } else priced.assumed += 1;
      const billed = estimate?.billedMs ?? ASSUMED_BILLED_MS;
      expected += (options.samples * (costPerMillion(billed, price) + REQUEST_PRICE_PER_MILLION)) / 1e6;
      worst += (options.samples * (costPerMillion(FUNCTION_TIMEOUT_S * 1000, price) + REQUEST_PRICE_PER_MILLION)) / 1e6;
    }
  }
  return { runId, functions, memories: options.memories, samples: options.samples, invocations, dollars: { expected, worst }, priced };
}

const dollars = (value: number) => `$${value < 0.01 ? value.toFixed(4) : value.toFixed(2)}`;

/**
 * How the cost was priced, in two parts: what the cost line says after the figure, and the line under it that says
 * which run's estimates priced how many cells, or that the 1,000 ms a cold start is an assumption.
 */
export function pricedBy(plan: LambdaRunPlan, options: Pick<LambdaRunOptions, 'estimates'>): { head: string; note: string } {
  const { estimated, assumed, billedMs, builds } = plan.priced;
  const cells = (n: number) => `${n} cell${n === 1 ? '' : 's'}`;
  const assumption = `${ASSUMED_BILLED_MS} ms billed a cold start is an assumption, not the tool's estimate`;
  if (!options.estimates)
    return {
      head: `at ${ASSUMED_BILLED_MS} ms billed a cold start`,
      note: `  ${assumption}: --estimate RUN (a local run of these cells) prices each cell from its estimate`,
    };
  const from = options.estimates.source;
  if (estimated === 0)
    return {
      head: `at ${ASSUMED_BILLED_MS} ms billed a cold start`,
      note: `  ${assumption}: ${from} has no estimate of these ${cells(assumed)} (their cells, memory sizes, lines or architectures)`,
    };
  const low = Math.min(...billedMs);
  const high = Math.max(...billedMs);
  const range = low === high ? `${low} ms` : `${low}–${high} ms`;
  const built = builds.every((b) => b.startsWith('bundle'))
    ? ''
    : `; estimated as built there: ${builds.join(', ')}, the functions ship a bundle`;
  const of = `${estimated} of ${cells(estimated + assumed)}`;
  const priced = `${of} priced at the Billed Duration ${from} estimated for them (${range}${built})`;
  const rest =
    assumed === 0 ? '' : `; the other ${assumed} at ${ASSUMED_BILLED_MS} ms a cold start, an assumption (${from} has no estimate of them)`;
  return { head: `from the estimates of ${from}`, note: `  ${priced}${rest}` };
}

/** The plan in lines, as the dry run prints it and a real run before it starts. */
export function describePlan(plan: LambdaRunPlan, options: LambdaRunOptions): string[] {
  const role = options.createRole ? `a role created for the run (coldstart-${plan.runId}, logs only)` : `role ${options.role}`;
  const cells = `${plan.functions.length} function(s) × ${plan.memories.length} memory size(s) (${plan.memories.join(', ')} MB)`;
  const clean = toolCommand('lambda:clean', ['--region', options.region, '--run', plan.runId]);
  const cost = plan.dollars;
  const priced = pricedBy(plan, options);
  return [
    `input: ${describeInput(options.input.recorded)}`,
    `run ${plan.runId} in ${options.region}: ${cells} × ${plan.samples} cold starts = ${plan.invocations} invocations, ` +
      `${options.parallel} function(s) at a time, with ${role}`,
    ...plan.functions.map((fn) => `  ${fn.deployed}  ${fn.runtime} ${fn.architecture}  → ${displayPath(fn.out)}`),
    `estimated cost: ${dollars(cost.expected)} ${priced.head} ` +
      `(at most ${dollars(cost.worst)} if every invocation ran to the ${FUNCTION_TIMEOUT_S} s timeout); ` +
      `Lambda's price per GB-s and per request, CloudWatch Logs not included`,
    priced.note,
    `every resource is tagged ${RUN_TAG}=${plan.runId}; ` +
      (options.keep ? `kept at the end (--keep): ${clean} removes them` : 'deleted at the end'),
  ];
}

/**
 * The run's plan, checked (the role options, the run id, the function names, an --out that holds no run yet),
 * printed; on a dry run followed by `dry run: nothing created`.
 */
export function printPlan(options: LambdaRunOptions, print: (line: string) => void): LambdaRunPlan {
  checkRole(options);
  const plan = planRun(options, options.input.packaged);
  const out = path.resolve(options.out);
  if (plan.functions.some((fn) => fn.out !== out)) {
    // a run folder per line and architecture under --out: --out itself holds those folders only (each checked below)
    const ownEntries = plan.functions.map((fn) => path.basename(fn.out));
    checkOutDir(out, '--out', { what: "a folder of lambda:run's run folders", markers: [], ownEntries });
  }
  for (const fn of plan.functions) {
    // before anything is created: an --out that can take no run folder (a file, a FIFO, /dev/null, /proc, a link
    // leading nowhere) would otherwise be found only when the finished cold starts are written
    checkOutDir(fn.out, '--out', RUN_FOLDER);
    if (existsSync(path.join(fn.out, SAMPLES_FILE))) {
      throw new UsageError(`--out ${fn.out} already holds a run (${SAMPLES_FILE}): choose another folder`);
    }
  }
  for (const line of describePlan(plan, options)) print(line);
  if (options.dryRun) print('dry run: nothing created');
  return plan;
}
