/**
 * `run` (npm run metrics): its options, and the run (pipeline/run.ts) on generated cells. Ctrl-C
 * kills the live children, keeps every finished sample, writes the report of what there is and exits
 * 130; a run with failed samples exits 3 unless --allow-failures.
 */
import { leverAnswerOf } from './lever-answer.ts';
import path from 'node:path';
import type { Command as PlainCommand } from 'commander';
import { calibrationName } from '../calibration/calibration-file.ts';
import { Command, Option, type CommandUnknownOpts, type OptionValues } from '@commander-js/extra-typings';
import { EXIT_FAILED_SAMPLES, UsageError } from '../core/errors.ts';
import { countedSamples, runSpec, specRefusal, type RunSpec, type SpecInput } from '../core/run-spec.ts';
import { writeExport } from '../pipeline/export.ts';
import { fakeDeps, parseFakeScript } from '../pipeline/fake.ts';
import { realDeps, type Deps } from '../pipeline/ports.ts';
import { exitCodeOf, runPipeline, runSummaryLine, type RunResult } from '../pipeline/run.ts';
import { addCostGroup, costOf } from './groups/cost.ts';
import { addTypedCommand, givenFlags, type Empty, type Flat, type OptsOf } from './groups/common.ts';
import { addLambdaGroup, lambdaOf } from './groups/lambda.ts';
import { addLeverGroup, leversOf } from './groups/levers.ts';
import { addOutputGroup, outputOf } from './groups/output.ts';
import { addSamplingGroup, addFirstHitsOption, samplingOf } from './groups/sampling.ts';
import { addSelectionGroup, selectionOf } from './groups/selection.ts';
import { commandLine, say, tell } from './shared.ts';
import { PROJECT_ROOT } from '../core/paths.ts';
import { toolCommand } from '../core/speak.ts';

/**
 * What `run` and `measure` do with the spec they parsed: the pipeline with the real deps (the CLI),
 * or anything a caller asks (a test keeps the spec: specOfArgv).
 */
export type Execute = (spec: RunSpec, deps: () => Deps) => Promise<void>;

export interface ProgramHooks {
  /** the command line being parsed (default process.argv), for meta.json */
  argv?: readonly string[];
  execute?: Execute;
}

/** Measure, write the export, print the last line and set the exit code. */
export async function executeRun(spec: RunSpec, deps: () => Deps): Promise<void> {
  const result = await runPipeline(spec, deps());
  writeExport(spec.output.exportJson, result.summaries);
  finishRun(result, spec.output.allowFailures);
}

/** A spec whose options cannot stand together is a UsageError: an option that has no effect, or nothing to run. */
export function checkedSpec(spec: RunSpec, command: Parameters<typeof givenFlags>[0]): RunSpec {
  const given = givenFlags(command);
  const refusal = specRefusal(spec, given);
  if (refusal) throw new UsageError(refusal);
  return countedSamples(spec, given);
}

/**
 * The groups `run` and `measure` share after their cells: sampling, levers, Lambda, cost, output,
 * --calibration (in the Lambda group's help), and the hidden --debug-mode (the pipeline with the fake
 * deps: nothing real is started). The options they add are typed once, flat (RunGroupOpts, read from the
 * chain itself on a command of none): the chain's type instantiated on measure's own options went too
 * deep for tsc (TS2589), so this signature gives the flat type and the implementation's is the plain command.
 */
export function addRunGroups<A extends unknown[], O extends OptionValues, G extends OptionValues>(
  command: Command<A, O, G>,
  what: string,
): Command<A, Flat<O & RunGroupOpts>, G>;
export function addRunGroups(command: CommandUnknownOpts, what: string): CommandUnknownOpts {
  return runGroupsOn(command, what);
}

function runGroupsOn<A extends unknown[], O extends OptionValues, G extends OptionValues>(command: Command<A, O, G>, what: string) {
  return addOutputGroup(addCostGroup(addLambdaGroup(addLeverGroup(addSamplingGroup(command, what)))))
    .addOption(
      new Option(
        '--debug-mode [script]',
        'run with the fake sampler and cells: nothing is started (crash=, hang=, wrong=FW, interrupt-after=N, cv=X, pause-at=STEP)',
      ).hideHelp(),
    )
    .addOption(
      new Option(
        '--calibration <file>',
        'with Lambda cells: the calibration table the estimates use (lambda:calibrate fits one from your real runs; default: the ' +
          'shipped one); meta.json records it, and a later report uses it again',
      ).helpGroup('Lambda:'),
    );
}

type RunGroupOpts = OptsOf<ReturnType<typeof runGroupsOn<[], Empty, Empty>>>;

/** --calibration's value, relative to where the user ran the command (runCli started there). */
function calibrationOf(file: string | undefined): Partial<RunSpec['cost']> {
  const base = process.cwd();
  return file !== undefined ? { calibrationFile: { path: path.resolve(base, file), name: calibrationName(file, base) } } : {};
}

/** The spec of the shared groups, on `source` and the command's own cell options. */
export function specOfGroups(opts: RunGroupOpts, command: string, source: SpecInput['source'], cells: SpecInput['cells'] = {}): RunSpec {
  const lambda = lambdaOf(opts);
  return runSpec({
    command,
    ...(source ? { source } : {}),
    cells: { ...cells, ...leversOf(opts), ...lambda.cells },
    sampling: samplingOf(opts),
    limits: lambda.limits,
    cost: { ...costOf(opts), ...calibrationOf(opts.calibration) },
    output: outputOf(opts),
  });
}

/** The deps of a run: the real machine, or with --debug-mode the fakes (its script: crash=FW, hang=FW, …). */
export function depsOf(debugMode: string | true | undefined): () => Deps {
  if (debugMode === undefined) return realDeps;
  const script = parseFakeScript(debugMode === true ? '' : debugMode);
  if (typeof script === 'string') throw new UsageError(`--debug-mode: ${script}`);
  return () => fakeDeps({ ...script, echo: true });
}

/**
 * What `metrics` (run) says when started in a folder outside the package (an app that installed it): it
 * measures the generated framework cells, not the app; `measure --entry` measures the app.
 */
export function appFolderNote(cwd: string, root = PROJECT_ROOT): string | undefined {
  const inside = path.relative(root, path.resolve(cwd));
  if (inside === '' || (!inside.startsWith('..') && !path.isAbsolute(inside))) return undefined;
  return (
    "note: metrics measures coldstart's generated framework cells (the frameworks at each route count), not the app in this folder; " +
    `to measure your app: ${toolCommand('measure', ['--entry', 'server.js'])} (or --handler FILE.export --event FILE for a Lambda handler)`
  );
}

export function registerRunCommand(program: PlainCommand, hooks: ProgramHooks = {}): void {
  const run = new Command('run').description('generate, run every file as fresh processes, verify the answers, write the report');
  const command = addFirstHitsOption(addRunGroups(addSelectionGroup(run), 'cell')).action(async (opts, self) => {
    const { source, cells } = selectionOf(opts);
    const spec = checkedSpec(specOfGroups(opts, commandLine([...(hooks.argv ?? process.argv)]), source, cells), self);
    const elsewhere = appFolderNote(process.cwd());
    if (elsewhere) tell(elsewhere);
    await (hooks.execute ?? executeRun)(spec, depsOf(opts.debugMode));
  });
  addTypedCommand(program, command);
}

/** The last line of a run, and its exit code: 130 interrupted, 3 when samples failed (unless allowed). */
export function finishRun(result: RunResult, allowFailures: boolean): void {
  // the levers' answer (levers.md's tables, a failed variant's reason) before the last line, when the run has one
  const answer = result.recorded > 0 ? leverAnswerOf(result.dir) : undefined;
  if (answer) say(`${answer}\n`);
  say(runSummaryLine(result));
  // a run with no Lambda cell: how to get the Lambda answer, in one line (the markdown's code marks dropped)
  if (result.lambdaHint) say(result.lambdaHint.replace(/`/g, ''));
  const code = exitCodeOf(result, allowFailures);
  if (code === EXIT_FAILED_SAMPLES) {
    process.stderr.write(
      `coldstart: ${result.failed} sample(s) failed (see summary.md): exit ${EXIT_FAILED_SAMPLES}; --allow-failures accepts them\n`,
    );
  }
  if (code !== 0) process.exitCode = code;
}
