/**
 * `lambda-run` (npm run lambda:run), the use case: a package from `lambda:package` measured on real
 * AWS Lambda in one command. Every packaged function is created once per runtime line and architecture
 * (named `<packaged name>-<run id>`, tagged `coldstart:run=<run id>`), then, for each memory size,
 * N cold starts are forced the way lambda-perf and aws-lambda-power-tuning force them: change the
 * function's configuration (memory and an environment variable), wait until the update is live
 * (the SDK's waiter: LastUpdateStatus Successful), invoke with `LogType: Tail` and read the REPORT line
 * of the log tail Lambda returns (or, when a chatty handler pushed it out of the tail's 4 KB, the same
 * line from CloudWatch Logs: cloud/logs-api.ts). The log tails are kept in the run folder (`lambda-logs/`), and read
 * by lambda:import's own reader into the same run folder an import writes. At the end (an error and
 * an interrupt included) every resource the run created is deleted unless `--keep`, the log groups
 * Lambda made for its functions included; what could not be deleted is listed with the command that
 * removes it (`lambda:clean`, or `aws logs delete-log-group` for a log group). After `--create-role`,
 * CreateFunction is retried while IAM has not yet propagated the new role (up to `--role-wait`).
 *
 * Deploying with the SDK rather than CloudFormation: a stack takes minutes to create and delete and
 * hides which resource failed, a run changes each function's configuration dozens of times (a stack
 * update each, or drift), and the SDK's waiters and retries are what the loop needs. The SAM template
 * stays the way to deploy a package by hand.
 */
import { toolCommand } from '../core/speak.ts';
import { contractOf, PROBE_NAME } from '../../generators/contract.ts';
import { lambdaEvent } from '../../generators/lambda-event.ts';
import { loadGenerators } from '../../generators/registry.ts';
import { routePath } from '../../generators/contract.ts';
import { retryWithin } from '../cloud/backoff.ts';
import { awsFailure, awsStop, isRoleNotAssumable, sdkLambdaApi, type LambdaApi, type NewFunction } from '../cloud/lambda-api.ts';
import { DEFAULT_LOGS_WAIT_S, DEFAULT_ROLE_WAIT_S } from './lambda-run-inputs.ts';
import { logGroupOf, reportFromLogs, sdkLogsApi, type LogsApi } from '../cloud/logs-api.ts';
import { isReportMessage, parseReportMessage } from '../cloud/report-lines.ts';
import { displayPath } from '../core/display.ts';
import { EXIT_AWS_ACCESS, EXIT_AWS_LEFT_BEHIND, ExitCodeError, UsageError } from '../core/errors.ts';
import { parseFunctionName, RUN_TAG } from '../core/function-name.ts';
import { ownedDir, writeOwnedFile } from '../store/files.ts';
import { makeWritableDir } from '../store/out-dir.ts';
import { importLambda, type LambdaImportOutcome } from './lambda-import.ts';
import { describeInput, readZip, type PackagedFunctionEntry } from './lambda-run-inputs.ts';
import { FUNCTION_TIMEOUT_S, printPlan, type LambdaRunOptions, type LambdaRunPlan, type PlannedFunction } from './lambda-run-plan.ts';
import { type Created, errorName, firstLine, cleanUp, pool } from './lambda-run-cleanup.ts';
import { exitCodeOfSignal } from '../measure/children.ts';

/** The folder of a run folder that keeps the log tails the samples were read from, one file per function. */
export const LOGS_DIR = 'lambda-logs';

export interface LambdaRunDeps {
  /** the calls to AWS (default: the SDK's clients for the region) */
  api?: () => LambdaApi;
  /** the calls to CloudWatch Logs (default: the SDK's client for the region) */
  logs?: () => LogsApi;
  print: (line: string) => void;
  warn: (line: string) => void;
  /** aborted on SIGINT or SIGTERM (reason: the signal's name) */
  signal?: AbortSignal;
  now?: () => number;
}

export interface LambdaRunOutcome {
  plan: LambdaRunPlan;
  /** one per run folder written (none on a dry run) */
  written: LambdaImportOutcome[];
  /** invocations whose REPORT said a Status other than success, or that returned a function error */
  failed: number;
  /** invocations whose REPORT line came from CloudWatch Logs (not in the tail) */
  fromLogs: number;
  /** invocations whose REPORT line was found neither in the tail nor in CloudWatch Logs: not samples */
  missing: number;
}

/** The request of a packaged function: its last route, with the body its framework's contract validates. */
async function payloadOf(entry: PackagedFunctionEntry): Promise<string> {
  const cell = parseFunctionName(entry.name)!;
  const generators = await loadGenerators('lambda');
  const generator = generators.find((g) => g.name === cell.framework);
  const last = cell.routes - 1;
  const body = contractOf(generator ?? {}).validBody(last, PROBE_NAME);
  return JSON.stringify(lambdaEvent(routePath(last), body, { format: entry.eventFormat }));
}

function formatSeconds(s: number): string {
  if (!Number.isFinite(s)) return '?';
  const whole = Math.round(s);
  return whole >= 60 ? `${Math.floor(whole / 60)} min ${whole % 60} s` : `${whole} s`;
}

class Interrupted extends Error {}

/** One run on AWS: what it created, the log tails it collected, its progress. */
class ColdStartRun {
  readonly created: Created = { functions: [], logGroups: [] };
  readonly logs = new Map<PlannedFunction, string[]>();
  readonly controller = new AbortController();
  done = 0;
  failed = 0;
  reportsFromLogs = 0;
  missing = 0;
  private roleWaitSaid = false;
  private readonly started: number;
  private readonly now: () => number;

  constructor(
    private readonly api: LambdaApi,
    private readonly logsApi: LogsApi,
    private readonly plan: LambdaRunPlan,
    private readonly options: LambdaRunOptions,
    private readonly payloads: Map<string, string>,
    private readonly print: (line: string) => void,
  ) {
    this.now = Date.now;
    this.started = this.now();
  }

  private check(): void {
    if (this.controller.signal.aborted) throw new Interrupted();
  }

  /** The run's role, when it creates one; else the role given. */
  async role(): Promise<string> {
    if (!this.options.createRole) return this.options.role!;
    const name = `coldstart-${this.plan.runId}`;
    try {
      this.created.role = name;
      return await this.api.createRole(name, { [RUN_TAG]: this.plan.runId });
    } catch (error) {
      throw awsStop(error, `creating role ${name}`);
    }
  }

  /** Create the function and wait until it is Active. */
  async create(fn: PlannedFunction, role: string): Promise<void> {
    this.check();
    try {
      this.created.functions.push(fn.deployed);
      this.created.logGroups.push(logGroupOf(fn.deployed));
      await this.createFunction({
        name: fn.deployed,
        zip: readZip(fn.packaged.zip),
        role,
        runtime: fn.runtime,
        architecture: fn.architecture,
        memory: this.plan.memories[0]!,
        handler: fn.packaged.handler ?? 'index.handler',
        timeoutS: FUNCTION_TIMEOUT_S,
        env: { NODE_ENV: 'production' },
        tags: { [RUN_TAG]: this.plan.runId, 'coldstart:function': fn.packaged.name },
      });
      await this.api.waitReady(fn.deployed, 'create', this.options.readyTimeoutS, this.controller.signal);
    } catch (error) {
      if (this.controller.signal.aborted) throw new Interrupted();
      throw awsStop(error, `creating ${fn.deployed}`);
    }
  }

  /**
   * CreateFunction; after --create-role, while Lambda cannot yet assume the new role (IAM propagates it
   * in seconds), again with backoff (cloud/backoff.ts: 1 s, doubled, at most 10 s) until --role-wait has passed.
   */
  private async createFunction(input: NewFunction): Promise<void> {
    const waitMs = (this.options.roleWaitS ?? DEFAULT_ROLE_WAIT_S) * 1000;
    const created = await retryWithin<undefined, unknown>(
      async () => {
        try {
          await this.api.createFunction(input);
          return { done: true, value: undefined };
        } catch (error) {
          if (!isRoleNotAssumable(error)) throw error;
          if (!this.options.createRole) {
            throw new ExitCodeError(
              `creating ${input.name}: Lambda cannot assume role ${input.role} ` +
                '(its trust policy must allow lambda.amazonaws.com sts:AssumeRole)',
              EXIT_AWS_ACCESS,
            );
          }
          return { done: false, miss: error };
        }
      },
      {
        waitMs,
        signal: this.controller.signal,
        now: this.now,
        onRetry: () => {
          if (this.roleWaitSaid) return;
          this.roleWaitSaid = true;
          this.print(`waiting for IAM to propagate role ${input.role} (retrying CreateFunction for up to ${waitMs / 1000} s)`);
        },
      },
    );
    if (!created.ok) {
      throw new ExitCodeError(
        `creating ${input.name}: Lambda still cannot assume the created role ${input.role} after ${created.attempts} attempt(s) ` +
          `over ${Math.round(created.elapsedMs / 1000)} s (IAM propagation; --role-wait ${waitMs / 1000}): ${firstLine(created.miss)}`,
        EXIT_AWS_ACCESS,
      );
    }
  }

  /** Create the function, then force its cold starts, memory size by memory size. */
  async measure(fn: PlannedFunction, role: string): Promise<void> {
    await this.create(fn, role);
    const lines: string[] = [];
    this.logs.set(fn, lines);
    for (const memory of this.plan.memories) {
      for (let i = 1; i <= this.plan.samples; i++) await this.coldStart(fn, memory, i, lines);
    }
  }

  /** A configuration change, the update awaited, one invocation; its log tail kept. */
  private async coldStart(fn: PlannedFunction, memory: number, i: number, lines: string[]): Promise<void> {
    this.check();
    let invocation;
    let invokedAt: number;
    try {
      const env = { NODE_ENV: 'production', COLDSTART_SAMPLE: `${this.plan.runId}-${memory}-${i}` };
      await this.api.updateConfiguration(fn.deployed, memory, env);
      await this.api.waitReady(fn.deployed, 'update', this.options.readyTimeoutS, this.controller.signal);
      this.check();
      invokedAt = this.now();
      invocation = await this.api.invoke(fn.deployed, this.payloads.get(fn.packaged.name)!, this.controller.signal);
    } catch (error) {
      if (this.controller.signal.aborted) throw new Interrupted();
      throw awsStop(error, `forcing a cold start of ${fn.deployed}`);
    }
    const at = new Date(this.now()).toISOString();
    const tail = invocation.log.split('\n').filter((line) => line.trim() !== '');
    let report = tail.find((line) => isReportMessage(line) && parseReportMessage(line).ok);
    let source = '';
    let missing: string | undefined;
    // a REPORT line that did not parse is left out: the one from the logs stands for it
    for (const line of report === undefined ? tail.filter((l) => !isReportMessage(l)) : tail) lines.push(`${at} ${line}`);
    if (report === undefined) {
      // the answer's x-amzn-RequestId; else the id the tail's END (or START) line names
      const requestId = invocation.requestId ?? /\b(?:END|START) RequestId: ([0-9a-f-]{36})\b/.exec(invocation.log)?.[1];
      const found = await this.reportFromLogs(fn, requestId, invokedAt);
      if (found.ok) {
        const when = new Date(found.timestamp).toISOString();
        for (const line of found.message.split('\n')) if (line.trim() !== '') lines.push(`${when} ${line}`);
        report = found.message.split('\n')[0]!;
        source = ' (REPORT line from CloudWatch Logs)';
        this.reportsFromLogs++;
      } else {
        missing = found.reason;
        this.missing++;
      }
    }
    this.done++;
    const eta = ((this.now() - this.started) / this.done) * (this.plan.invocations - this.done);
    const what =
      missing !== undefined
        ? `no REPORT line in the log tail nor in CloudWatch Logs (${missing}): not a sample`
        : this.describe(report!, invocation.functionError) + source;
    this.print(`[${this.done}/${this.plan.invocations}] ${fn.deployed} ${memory} MB #${i}: ${what} (ETA ${formatSeconds(eta / 1000)})`);
  }

  /** The REPORT line of an invocation whose tail lacks it, from the function's log group (bounded wait). */
  private async reportFromLogs(
    fn: PlannedFunction,
    requestId: string | undefined,
    invokedAt: number,
  ): Promise<{ ok: true; timestamp: number; message: string } | { ok: false; reason: string }> {
    if (requestId === undefined) return { ok: false, reason: 'the answer named no request id' };
    try {
      return await reportFromLogs(this.logsApi, fn.deployed, requestId, {
        invokedAt,
        waitS: this.options.logsWaitS ?? DEFAULT_LOGS_WAIT_S,
        signal: this.controller.signal,
      });
    } catch (error) {
      if (this.controller.signal.aborted) throw new Interrupted();
      const failure = awsFailure(error, `reading ${fn.deployed}'s REPORT line from CloudWatch Logs`);
      if (failure) throw failure;
      return { ok: false, reason: `${errorName(error)}: ${firstLine(error).slice(0, 200)}` };
    }
  }

  /** One invocation in words, from its REPORT line; a failed one counted. */
  private describe(line: string, functionError: string | undefined): string {
    const parsed = parseReportMessage(line);
    if (!parsed.ok) return `REPORT line unreadable: ${parsed.reason}`;
    const { report } = parsed;
    const status = report.status !== undefined && report.status !== 'success' ? report.status : undefined;
    if (status !== undefined || functionError !== undefined) this.failed++;
    if (report.initMs === undefined) return 'warm (no Init Duration): not a sample';
    return `Init ${report.initMs} ms${status ? `, Status ${status}${report.errorType ? ` (${report.errorType})` : ''}` : ''}`;
  }
}

/** Plan, deploy, force the cold starts, collect, write the run folders, delete. */
export async function runOnLambda(options: LambdaRunOptions, deps: LambdaRunDeps): Promise<LambdaRunOutcome> {
  const { print, warn } = deps;
  const { packaged } = options.input;
  const plan = printPlan(options, print);
  if (options.dryRun) return { plan, written: [], failed: 0, fromLogs: 0, missing: 0 };
  const payloads = new Map<string, string>();
  for (const entry of packaged) payloads.set(entry.name, entry.payload ?? (await payloadOf(entry)));
  const api = deps.api?.() ?? sdkLambdaApi(options.region);
  const logs = deps.logs?.() ?? sdkLogsApi(options.region);
  const run = new ColdStartRun(api, logs, plan, options, payloads, print);
  const interruptedBy = await forceAll(api, logs, run, plan, options, deps);
  const left = await finish(api, logs, run, options, plan, warn);
  const written = await writeRunFolders(plan, run.logs, options, print, warn);
  if (interruptedBy !== undefined) {
    throw new ExitCodeError(
      `interrupted: ${written.length} run folder(s) written from the finished cold starts`,
      exitCodeOfSignal(interruptedBy as NodeJS.Signals),
    );
  }
  if (left.length) {
    throw new ExitCodeError(
      `${left.length} resource(s) could not be deleted: ${toolCommand('lambda:clean', ['--region', options.region, '--run', plan.runId])}` +
        (left.some((l) => l.startsWith('log group ')) ? ' (a log group: the aws logs command after it above)' : ''),
      EXIT_AWS_LEFT_BEHIND,
    );
  }
  return { plan, written, failed: run.failed, fromLogs: run.reportsFromLogs, missing: run.missing };
}

/** Every function's cold starts; the signal's name when interrupted. A failure deletes what was created, then is thrown. */
async function forceAll(
  api: LambdaApi,
  logs: LogsApi,
  run: ColdStartRun,
  plan: LambdaRunPlan,
  options: LambdaRunOptions,
  deps: LambdaRunDeps,
): Promise<string | undefined> {
  const onOuter = () => run.controller.abort(deps.signal?.reason);
  deps.signal?.addEventListener('abort', onOuter, { once: true });
  try {
    const role = await run.role();
    await pool(
      plan.functions,
      options.parallel,
      (fn) => run.measure(fn, role),
      () => run.controller.abort('failure'),
    );
    return undefined;
  } catch (error) {
    const interrupted = deps.signal?.aborted === true && (error instanceof Interrupted || run.controller.signal.reason !== 'failure');
    if (!interrupted) {
      await finish(api, logs, run, options, plan, deps.warn);
      await keepFinished(run, plan, options, deps);
      throw error;
    }
    const by = String(deps.signal?.reason ?? 'SIGINT');
    deps.warn(`interrupted (${by}) after ${run.done} of ${plan.invocations} invocations: deleting what the run created`);
    return by;
  } finally {
    deps.signal?.removeEventListener('abort', onOuter);
  }
}

/**
 * The cold starts that finished before a failure, written to their run folders as an interrupt keeps them (a later
 * quota, refusal or endless answer loses none of them); a folder that cannot be written is said, the failure stands.
 */
async function keepFinished(run: ColdStartRun, plan: LambdaRunPlan, options: LambdaRunOptions, deps: LambdaRunDeps): Promise<void> {
  if (run.done === 0) return;
  try {
    const written = await writeRunFolders(plan, run.logs, options, deps.print, deps.warn);
    if (written.length) {
      deps.warn(`the ${run.done} finished invocation(s) are kept: ${written.map((w) => displayPath(w.dir)).join(', ')}`);
    }
  } catch (error) {
    deps.warn(`the finished invocations could not be written: ${firstLine(error)}`);
  }
}

/** Delete what the run created (unless --keep) and say what is left; what could not be deleted, named. */
async function finish(
  api: LambdaApi,
  logs: LogsApi,
  run: ColdStartRun,
  options: LambdaRunOptions,
  plan: LambdaRunPlan,
  warn: (line: string) => void,
): Promise<string[]> {
  const { created } = run;
  let left: string[] = [];
  if (options.keep) {
    if (created.functions.length) {
      warn(
        `kept (--keep): ${created.functions.join(', ')}${created.role ? `, role ${created.role}` : ''}; ` +
          `their log groups ${created.logGroups.join(', ')}`,
      );
    }
  } else {
    left = await cleanUp(api, logs, created, { region: options.region, runId: plan.runId }, warn);
  }
  const remaining = options.keep ? created.functions.length + (created.role ? 1 : 0) : left.length;
  if (remaining) warn(`to remove it: ${toolCommand('lambda:clean', ['--region', options.region, '--run', plan.runId])}`);
  return left;
}

/** The log tails into each run folder's lambda-logs/, then lambda:import's reader over them. */
async function writeRunFolders(
  plan: LambdaRunPlan,
  logs: Map<PlannedFunction, string[]>,
  options: LambdaRunOptions,
  print: (line: string) => void,
  warn: (line: string) => void,
): Promise<LambdaImportOutcome[]> {
  const byOut = new Map<string, PlannedFunction[]>();
  for (const fn of plan.functions) if (logs.get(fn)?.length) byOut.set(fn.out, [...(byOut.get(fn.out) ?? []), fn]);
  const written: LambdaImportOutcome[] = [];
  for (const [out, functions] of byOut) {
    // the run folder (its ownership checked with the plan) and its logs/: made one level at a time, never through a link
    makeWritableDir(out);
    const dir = ownedDir(out, LOGS_DIR);
    const files = functions.map((fn) => writeOwnedFile(dir, `${fn.packaged.name}.log`, `${logs.get(fn)!.join('\n')}\n`));
    const { runtime, architecture } = functions[0]!;
    try {
      written.push(
        await importLambda(
          {
            files,
            out,
            command: options.command,
            architecture,
            runtime,
            origin: {
              samples:
                `forced by lambda:run ${plan.runId} in ${options.region} from ${describeInput(options.input.recorded)}: ` +
                `${plan.samples} a cell ` +
                '(a configuration change, the update awaited, one invocation with LogType Tail)',
              order: 'each function on its own, memory sizes in turn; functions in parallel',
              os: `AWS Lambda (${options.region}, lambda:run ${plan.runId})`,
              input: options.input.recorded,
            },
          },
          print,
          warn,
        ),
      );
    } catch (error) {
      if (!(error instanceof UsageError)) throw error;
      warn(`${displayPath(out)}: ${error.message}`);
    }
  }
  return written;
}
