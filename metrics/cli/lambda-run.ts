/**
 * `lambda-run` (npm run lambda:run) and `lambda-clean` (npm run lambda:clean): their options; the
 * use cases are pipeline/lambda-run.ts and pipeline/lambda-clean.ts. SIGINT and SIGTERM abort a run,
 * which then deletes what it created (or names what is left) before it exits 130 or 143.
 */
import { LAMBDA_RUN_NO_WEB } from '../core/web-platform.ts';
import { PACKAGE_TARGETS, type PackageTarget } from '../pipeline/lambda-package.ts';
import { toolCommand } from '../core/speak.ts';
import { parseRegion, regionOf } from './aws-region.ts';
import path from 'node:path';
import type { Command as PlainCommand } from 'commander';
import { Command, Option } from '@commander-js/extra-typings';
import { withAwsSdk } from '../core/aws-sdk.ts';
import { EXIT_FAILED_SAMPLES, UsageError } from '../core/errors.ts';
import { oneLine } from '../core/escape.ts';
import { DEFAULT_LAMBDA_RUNTIME, DEFAULT_MEMORY_MB, parseLambdaRuntime, type LambdaRuntimeLine } from '../core/lambda-platform.ts';
import { parseArchitectures, parseInteger, parseList, parseMemoryList } from '../core/parse.ts';
import { calibrateLambda } from '../pipeline/lambda-calibrate.ts';
import {
  checkRole,
  DEFAULT_LOGS_WAIT_S,
  DEFAULT_ROLE_WAIT_S,
  inputKindOf,
  prepareInput,
  readPackage,
  type LambdaRunInput,
} from '../pipeline/lambda-run-inputs.ts';
import { DIMENSIONS, INIT_MODES } from '../core/dimensions.ts';
import { parseChoiceList } from '../core/parse.ts';
import { addTypedCommand, dimensionOption, givenFlags } from './groups/common.ts';
import { addSourceGroup, sourceOf } from './groups/selection.ts';
import type { LambdaRunOutcome } from '../pipeline/lambda-run.ts';
import { printPlan, type LambdaRunOptions } from '../pipeline/lambda-run-plan.ts';
import { planEstimatesOf } from '../pipeline/lambda-run-estimate.ts';
import { commandLine, displayPath, say } from './shared.ts';

const parseLines = (text: string): LambdaRuntimeLine[] => [
  ...new Set(parseList('--lambda-runtime', text).map((v) => parseLambdaRuntime('--lambda-runtime', v, false))),
];

function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

/** The flags of each input kind besides the package folder: measure's handler flags, the dimension table's selection flags. */
const HANDLER_FLAGS = ['--handler', '--event', '--cwd', '--name'] as const;
const GENERATED_FLAGS = ['--frameworks', '--routes', '--variant', '--shape', '--schema', '--init'] as const;

const logsWaitOption = new Option(
  '--logs-wait <s>',
  'how long the REPORT line of an invocation whose log tail lacks it is looked for in CloudWatch Logs (0: asked once)',
)
  .default(DEFAULT_LOGS_WAIT_S)
  .argParser(parseInteger('--logs-wait', 0, 900));
const roleWaitOption = new Option(
  '--role-wait <s>',
  'with --create-role, how long CreateFunction is retried while IAM propagates the new role, before the run stops (exit 5)',
)
  .default(DEFAULT_ROLE_WAIT_S)
  .argParser(parseInteger('--role-wait', 0, 900));

/** The plan's cost from a local run's estimates (pipeline/lambda-run-estimate.ts). */
const estimateOption = new Option(
  '--estimate <run folder>',
  "a local run of the same cells (run --target lambda, measure --handler): the plan's cost priced from its estimate of " +
    'each cell (default: 1000 ms a cold start, an assumption)',
);

/** Web Functions are refused here, with why: lambda:run deploys event functions only. */
const targetOption = new Option('--target <target>', 'lambda (event functions); lambda-web (Web Functions) is refused, with why').argParser(
  (text): PackageTarget => {
    if (!Object.hasOwn(PACKAGE_TARGETS, text))
      throw new UsageError(`--target: "${text}" is not one of ${Object.keys(PACKAGE_TARGETS).join(', ')}`);
    if (PACKAGE_TARGETS[text as PackageTarget].web) throw new UsageError(LAMBDA_RUN_NO_WEB);
    return text as PackageTarget;
  },
);

function lambdaRunCommand() {
  const command = new Command('lambda-run')
    .description(
      'deploy to AWS Lambda a lambda:package folder, your own handler (--handler) or generated cells (--frameworks, --routes), ' +
        'force N cold starts per cell (configuration change, wait, invoke), write a run folder as lambda:import does, ' +
        'and delete what it created',
    )
    .argument('[package]', 'a folder written by lambda:package (template.yaml and functions/*.zip); or --handler, or generated cells')
    .optionsGroup('Your handler (instead of a package):')
    .addOption(
      new Option(
        '--handler <file.export>',
        'a Lambda handler module and its export, as measure takes it (src/index.handler); repeat for several',
      ).argParser(collect),
    )
    .addOption(new Option('--event <file>', 'the JSON event each handler is invoked with (needed with --handler; at most 6 MB)'))
    .addOption(new Option('--cwd <dir>', 'the folder --handler is named from (default: where you ran the command)'))
    .addOption(
      new Option(
        '--name <list>',
        'names for the handlers in the order given (default: from the file names); the function is coldstart-NAME-1-plain',
      ),
    );
  // generated cells (instead of a package): the dimension table's flags, as run and lambda:package declare them
  return addSourceGroup(command)
    .addOption(dimensionOption(DIMENSIONS.init, '--init', parseChoiceList('--init', INIT_MODES)))
    .optionsGroup('Options:')
    .addOption(targetOption)
    .addOption(
      new Option(
        '-o, --out <dir>',
        'the run folder to write (one per runtime line and architecture inside it when several; required but with --dry-run)',
      ),
    )
    .addOption(
      new Option(
        '--region <region>',
        'the AWS region to deploy to (default, as the AWS CLI: AWS_REGION, else AWS_DEFAULT_REGION, else the region of the ' +
          'AWS_PROFILE profile in ~/.aws/config)',
      ).argParser((text: string) => parseRegion(text)),
    )
    .addOption(new Option('--role <arn>', "the functions' execution role (it needs no permission beyond writing logs)"))
    .addOption(
      new Option('--create-role', 'create a least-privilege role for the run (logs only; needs iam:CreateRole) and delete it at the end'),
    )
    .addOption(
      new Option('--lambda-memory <mb,...>', `memory sizes, MB (default ${DEFAULT_MEMORY_MB})`).argParser(
        parseMemoryList('--lambda-memory'),
      ),
    )
    .addOption(
      new Option('--arch <arch,...>', 'architectures, x86_64 and/or arm64 (default x86_64)').argParser(parseArchitectures('--arch')),
    )
    .addOption(
      new Option(
        '--lambda-runtime <line,...>',
        "Lambda runtime lines (default: the package's; " +
          `${DEFAULT_LAMBDA_RUNTIME} for --handler and generated cells, bundled for the oldest line)`,
      ).argParser(parseLines),
    )
    .addOption(new Option('--samples <n>', 'cold starts per cell').default(10).argParser(parseInteger('--samples', 1, 1000)))
    .addOption(new Option('--parallel <n>', 'functions worked on at once').default(4).argParser(parseInteger('--parallel', 1, 50)))
    .addOption(
      new Option(
        '--ready-timeout <s>',
        'how long a function may take to become Active, or an update to go through, before the run stops (exit 7)',
      )
        .default(300)
        .argParser(parseInteger('--ready-timeout', 1, 3600)),
    )
    .addOption(logsWaitOption)
    .addOption(roleWaitOption)
    .addOption(new Option('--keep', 'keep the functions, their log groups (and role) at the end; npm run lambda:clean removes them'))
    .addOption(new Option('--dry-run', 'print the plan and its estimated cost, create nothing (needs no AWS SDK)'))
    .addOption(estimateOption)
    .addOption(new Option('--run-id <id>', 'the run id the resources are named and tagged with (default: 8 random hex digits)'));
}

function lambdaCleanCommand() {
  return new Command('lambda-clean')
    .description(
      'delete the functions, their log groups (and roles) lambda:run created, found by their coldstart:run tag, ' +
        'and the log groups of its functions already gone, found by their names (/aws/lambda/coldstart-…)',
    )
    .addOption(
      new Option(
        '--region <region>',
        'the AWS region (default AWS_REGION, else AWS_DEFAULT_REGION, else the region of the AWS_PROFILE profile)',
      ).argParser((text: string) => parseRegion(text)),
    )
    .addOption(new Option('--run <id>', "one run's resources (default: every run's)"))
    .addOption(new Option('--roles', 'also look for roles (IAM) the runs created'))
    .addOption(new Option('--dry-run', 'list them, delete nothing'));
}

/** Aborted on the first SIGINT or SIGTERM, its reason the signal's name; the handlers removed by `done`. */
function signalController(): { signal: AbortSignal; done: () => void } {
  const controller = new AbortController();
  const handlers = (['SIGINT', 'SIGTERM'] as const).map((name) => {
    const handler = () => controller.abort(name);
    process.on(name, handler);
    return [name, handler] as const;
  });
  return { signal: controller.signal, done: () => handlers.forEach(([name, handler]) => process.off(name, handler)) };
}

/** What a finished lambda:run says: its folders, the REPORT lines read from CloudWatch Logs, what is not a sample. */
function reportOutcome(outcome: LambdaRunOutcome, print: (line: string) => void, warn: (line: string) => void): void {
  for (const written of outcome.written) {
    print(`results in ${displayPath(written.dir)} (summary.md; ${toolCommand('report', [displayPath(written.dir)])} rebuilds it)`);
  }
  if (outcome.fromLogs > 0) print(`${outcome.fromLogs} REPORT line(s) read from CloudWatch Logs (not in the log tail)`);
  if (outcome.missing > 0) {
    warn(`${outcome.missing} invocation(s) without a REPORT line in the tail or CloudWatch Logs: not samples`);
    // cold starts asked for and not measured: the run is not whole, as with failed samples
    process.exitCode = EXIT_FAILED_SAMPLES;
  }
  if (outcome.failed > 0) {
    warn(`${outcome.failed} invocation(s) failed (Status in their REPORT line): listed in summary.md`);
    process.exitCode = EXIT_FAILED_SAMPLES;
  }
}

/** The folder a dry run without --out plans (nothing is written). */
const DRY_RUN_OUT = 'results/lambda-run';

export function registerLambdaRunCommand(program: PlainCommand): void {
  // lines quote AWS's answers (function names and tags, REPORT fields, error messages): control and escape characters as spaces
  const print = (line: string) => process.stdout.write(`${oneLine(line)}\n`);
  const warn = (line: string) => process.stderr.write(`${oneLine(line)}\n`);
  const run = lambdaRunCommand().action(async (pkg, opts, self) => {
    const dryRun = opts.dryRun === true;
    const region = regionOf(opts.region, process.env);
    // a dry run writes nothing: its plan names a folder all the same
    if (opts.out === undefined && !dryRun)
      throw new UsageError("required option '-o, --out <dir>' not specified (only --dry-run needs none)");
    // AWS's SDK is optional and loaded here only (core/aws-sdk.ts): no other command loads it, nor a dry run,
    // which creates nothing (its plan and cost: pipeline/lambda-run-plan.ts)
    const real = dryRun ? undefined : await withAwsSdk('lambda:run', () => import('../pipeline/lambda-run.ts'));
    const flags = givenFlags(self);
    const pick = (names: readonly string[]) => Object.fromEntries(names.map((flag) => [flag, flags.has(flag) ? true : undefined]));
    const kind = inputKindOf({
      ...(pkg !== undefined ? { packageDir: pkg } : {}),
      handler: pick(HANDLER_FLAGS),
      generated: pick(GENERATED_FLAGS),
    });
    const input: LambdaRunInput =
      kind === 'package'
        ? { kind, dir: pkg! }
        : kind === 'handler'
          ? { kind, base: process.cwd(), apps: { handler: opts.handler, event: opts.event, cwd: opts.cwd, name: opts.name } }
          : {
              kind,
              source: sourceOf(opts),
              inits: opts.init ?? [...DIMENSIONS.init.cli.lambda],
            };
    const runtimes = opts.lambdaRuntime ?? [
      ...new Set(
        kind === 'package'
          ? readPackage(pkg!).map((f) => parseLambdaRuntime("the package's Runtime", f.runtime, false))
          : [DEFAULT_LAMBDA_RUNTIME],
      ),
    ];
    const architectures = opts.arch ?? ['x86_64'];
    // a usage error before the input is bundled and packaged
    checkRole({ ...(opts.role !== undefined ? { role: opts.role } : {}), createRole: opts.createRole === true });
    const estimates = opts.estimate !== undefined ? planEstimatesOf(path.resolve(opts.estimate)) : undefined;
    const prepared = await prepareInput(input, { runtimes, architecture: architectures[0]!, log: warn, warn });
    const options: LambdaRunOptions = {
      input: prepared,
      out: opts.out ?? DRY_RUN_OUT,
      region,
      ...(opts.role !== undefined ? { role: opts.role } : {}),
      createRole: opts.createRole === true,
      memories: opts.lambdaMemory ?? [DEFAULT_MEMORY_MB],
      architectures,
      runtimes,
      samples: opts.samples,
      keep: opts.keep === true,
      dryRun,
      parallel: opts.parallel,
      readyTimeoutS: opts.readyTimeout,
      logsWaitS: opts.logsWait,
      roleWaitS: opts.roleWait,
      command: commandLine(process.argv, 'lambda:run'),
      ...(opts.runId !== undefined ? { runId: opts.runId } : {}),
      ...(estimates ? { estimates } : {}),
    };
    if (real === undefined) {
      try {
        printPlan(options, print);
      } finally {
        prepared.dispose();
      }
      return;
    }
    const signals = signalController();
    try {
      reportOutcome(await real.runOnLambda(options, { print, warn, signal: signals.signal }), print, warn);
    } finally {
      signals.done();
      prepared.dispose();
    }
  });
  addTypedCommand(program, run);
  addLambdaCleanCommand(program, print, warn);
}

function addLambdaCleanCommand(program: PlainCommand, print: (line: string) => void, warn: (line: string) => void): void {
  const clean = lambdaCleanCommand().action(async (opts) => {
    const { cleanLambda } = await withAwsSdk('lambda:clean', () => import('../pipeline/lambda-clean.ts'));
    await cleanLambda(
      {
        region: regionOf(opts.region, process.env),
        ...(opts.run !== undefined ? { runId: opts.run } : {}),
        roles: opts.roles === true,
        dryRun: opts.dryRun === true,
      },
      { print, warn },
    );
  });
  addTypedCommand(program, clean);
}

export function registerLambdaCalibrateCommand(program: PlainCommand): void {
  const command = new Command('lambda-calibrate')
    .description(
      'fit a calibration table from your real runs (lambda:run or lambda:import folders) against a local estimate run of the same cells; ' +
        'report and compare use it with --calibration FILE',
    )
    .argument('<local>', 'a local run with Lambda cells and their hello-world reference')
    .argument('<real...>', 'real runs of the same cells')
    .addOption(new Option('-o, --out <file>', 'the calibration table to write (JSON)').makeOptionMandatory())
    .action((local, real, opts) => {
      calibrateLambda({ local, real, out: opts.out }, say);
      say(`wrote ${displayPath(opts.out)}: ${toolCommand('report', ['DIR', '--calibration', displayPath(opts.out)])}`);
    });
  addTypedCommand(program, command);
}
