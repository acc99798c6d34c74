/**
 * `lambda-run` (npm run lambda:run) and `lambda-clean` (npm run lambda:clean): their options; the
 * use cases are pipeline/lambda-run.ts and pipeline/lambda-clean.ts. SIGINT and SIGTERM abort a run,
 * which then deletes what it created (or names what is left) before it exits 130 or 143.
 */
import type { Command as PlainCommand } from 'commander';
import { Command, Option } from '@commander-js/extra-typings';
import { withAwsSdk } from '../core/aws-sdk.ts';
import { EXIT_FAILED_SAMPLES, UsageError } from '../core/errors.ts';
import { DEFAULT_MEMORY_MB, parseLambdaRuntime, type LambdaRuntimeLine } from '../core/lambda-platform.ts';
import { parseArchitectures, parseInteger, parseList, parseMemoryList } from '../core/parse.ts';
import { calibrateLambda } from '../pipeline/lambda-calibrate.ts';
import { addTypedCommand } from './groups/common.ts';
import { commandLine, displayPath } from './shared.ts';

const parseLines = (text: string): LambdaRuntimeLine[] => [
  ...new Set(parseList('--lambda-runtime', text).map((v) => parseLambdaRuntime('--lambda-runtime', v, false))),
];

const REGION = /^[a-z]{2}(-[a-z]+)+-\d+$/;
function parseRegion(text: string): string {
  if (!REGION.test(text))
    throw new UsageError(`--region must be an AWS region such as us-east-1, got ${JSON.stringify(text).slice(0, 40)}`);
  return text;
}

function lambdaRunCommand() {
  return new Command('lambda-run')
    .description(
      'deploy a lambda:package folder to AWS Lambda, force N cold starts per cell (configuration change, wait, invoke), ' +
        'write a run folder as lambda:import does, and delete what it created',
    )
    .argument('<package>', 'a folder written by lambda:package (template.yaml and functions/*.zip)')
    .addOption(
      new Option(
        '-o, --out <dir>',
        'the run folder to write (one per runtime line and architecture inside it when several)',
      ).makeOptionMandatory(),
    )
    .addOption(
      new Option('--region <region>', 'the AWS region to deploy to (required: never a default)')
        .argParser(parseRegion)
        .makeOptionMandatory(),
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
    .addOption(new Option('--lambda-runtime <line,...>', "Lambda runtime lines (default: the package's)").argParser(parseLines))
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
    .addOption(new Option('--keep', 'keep the functions (and role) at the end; npm run lambda:clean removes them'))
    .addOption(new Option('--dry-run', 'print the plan and its estimated cost, create nothing'))
    .addOption(new Option('--run-id <id>', 'the run id the resources are named and tagged with (default: 8 random hex digits)'));
}

function lambdaCleanCommand() {
  return new Command('lambda-clean')
    .description('delete the functions (and roles) lambda:run created, found by their coldstart:run tag')
    .addOption(new Option('--region <region>', 'the AWS region').argParser(parseRegion).makeOptionMandatory())
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

export function registerLambdaRunCommand(program: PlainCommand): void {
  const print = (line: string) => process.stdout.write(`${line}\n`);
  const warn = (line: string) => process.stderr.write(`${line}\n`);
  const run = lambdaRunCommand().action(async (pkg, opts) => {
    // AWS's SDK is optional and loaded here only (core/aws-sdk.ts): no other command loads it
    const { readPackage, runOnLambda } = await withAwsSdk('lambda:run', () => import('../pipeline/lambda-run.ts'));
    const runtimes = opts.lambdaRuntime ?? [
      ...new Set(readPackage(pkg).map((f) => parseLambdaRuntime("the package's Runtime", f.runtime, false))),
    ];
    const signals = signalController();
    try {
      const outcome = await runOnLambda(
        {
          packageDir: pkg,
          out: opts.out,
          region: opts.region,
          ...(opts.role !== undefined ? { role: opts.role } : {}),
          createRole: opts.createRole === true,
          memories: opts.lambdaMemory ?? [DEFAULT_MEMORY_MB],
          architectures: opts.arch ?? ['x86_64'],
          runtimes,
          samples: opts.samples,
          keep: opts.keep === true,
          dryRun: opts.dryRun === true,
          parallel: opts.parallel,
          readyTimeoutS: opts.readyTimeout,
          command: commandLine(process.argv, 'lambda:run'),
          ...(opts.runId !== undefined ? { runId: opts.runId } : {}),
        },
        { print, warn, signal: signals.signal },
      );
      for (const written of outcome.written) {
        print(`results in ${displayPath(written.dir)} (summary.md; npm run report -- ${displayPath(written.dir)} rebuilds it)`);
      }
      if (outcome.failed > 0) {
        warn(`${outcome.failed} invocation(s) failed (Status in their REPORT line): listed in summary.md`);
        process.exitCode = EXIT_FAILED_SAMPLES;
      }
    } finally {
      signals.done();
    }
  });
  addTypedCommand(program, run);
  const clean = lambdaCleanCommand().action(async (opts) => {
    const { cleanLambda } = await withAwsSdk('lambda:clean', () => import('../pipeline/lambda-clean.ts'));
    await cleanLambda(
      {
        region: opts.region,
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
      calibrateLambda({ local, real, out: opts.out }, (line) => process.stdout.write(`${line}\n`));
      process.stdout.write(`wrote ${displayPath(opts.out)}: npm run report -- DIR --calibration ${displayPath(opts.out)}\n`);
    });
  addTypedCommand(program, command);
}
