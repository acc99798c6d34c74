/**
 * coldstart's command line (commander): one file per command in this folder, registered here. npm
 * scripts and the Makefile are thin doors into it. Every user mistake is one line on stderr and exit
 * 2, a refusal of the machine (disk full, a folder where a file belongs) one line naming the file and
 * exit 4; never a stack trace.
 */
import path from 'node:path';
import { Command, CommanderError } from 'commander';
import { EnvironmentError, EXIT_BUG, EXIT_ENVIRONMENT, EXIT_USAGE, ExitCodeError, UsageError } from '../core/errors.ts';
import { EXIT_OK } from '../core/exit-codes.ts';
import { registerBisectCommand } from './bisect.ts';
import { registerCleanCommand } from './clean.ts';
import { guardClosedOutput, withClosedOutput } from './closed-output.ts';
import { registerCompareCommand } from './compare.ts';
import { registerGateCommand } from './gate.ts';
import { registerGenerateCommand } from './generate.ts';
import { registerHyperfineCommand } from './hyperfine.ts';
import { registerLambdaImportCommand } from './lambda-import.ts';
import { registerLambdaPackageCommand } from './lambda-package.ts';
import { registerLambdaReferenceCommand } from './lambda-reference.ts';
import { registerLambdaCalibrateCommand, registerLambdaRunCommand } from './lambda-run.ts';
import { registerMeasureCommand } from './measure.ts';
import { registerMergeCommand } from './merge.ts';
import { registerReportCommand } from './report.ts';
import { registerResultsIndexCommand } from './results-index.ts';
import { registerRunCommand, type ProgramHooks } from './run.ts';
import { registerVerifyCommand } from './verify.ts';
import type { RunSpec } from '../core/run-spec.ts';
import { oneLine as printable } from '../core/escape.ts';
import { PROJECT_ROOT } from '../core/paths.ts';
import { invocationDir } from './invocation.ts';

const COMMANDS: ((program: Command, hooks: ProgramHooks) => void)[] = [
  registerRunCommand,
  registerMeasureCommand,
  registerGenerateCommand,
  registerReportCommand,
  registerHyperfineCommand,
  registerCompareCommand,
  registerGateCommand,
  registerVerifyCommand,
  registerBisectCommand,
  registerMergeCommand,
  registerLambdaPackageCommand,
  registerLambdaImportCommand,
  registerLambdaReferenceCommand,
  registerLambdaRunCommand,
  registerLambdaCalibrateCommand,
  registerCleanCommand,
  registerResultsIndexCommand,
];

/**
 * The npm script of each command whose name differs from it: `npx coldstart metrics` is `npm run
 * metrics`, as the README promises (a test checks package.json's scripts against this).
 */
export const SCRIPT_NAMES: Readonly<Record<string, string>> = {
  run: 'metrics',
  hyperfine: 'metrics:hyperfine',
  'lambda-package': 'lambda:package',
  'lambda-import': 'lambda:import',
  'lambda-reference': 'lambda:reference',
  'lambda-run': 'lambda:run',
  'lambda-clean': 'lambda:clean',
  'lambda-calibrate': 'lambda:calibrate',
  'results-index': 'results:index',
};

/** The program; `hooks` change what run and measure do with their spec (a test keeps it, runs nothing). */
export function buildProgram(hooks: ProgramHooks = {}): Command {
  const program = new Command('coldstart')
    .description('Cold-start metrics for Node.js HTTP frameworks as the number of routes grows')
    .showHelpAfterError(false)
    .exitOverride()
    .configureOutput({ writeErr: () => undefined });
  for (const register of COMMANDS) register(program, hooks);
  for (const command of program.commands) {
    const script = SCRIPT_NAMES[command.name()];
    if (script) command.alias(script);
  }
  return program;
}

/**
 * A command line (`['run', '--samples', '3']`) parsed and checked as the CLI does, nothing run: the
 * spec of run and measure, undefined for another command (its action is skipped). Every user mistake
 * is the UsageError (or CommanderError) the CLI would turn into exit 2.
 */
export async function specOfArgv(args: readonly string[]): Promise<RunSpec | undefined> {
  let spec: RunSpec | undefined;
  const argv = ['node', 'coldstart', ...args];
  const program = buildProgram({
    argv,
    execute: (parsed) => {
      spec = parsed;
      return Promise.resolve();
    },
  });
  for (const command of program.commands) {
    if (command.name() !== 'run' && command.name() !== 'measure') command.action(() => undefined);
  }
  await program.parseAsync(argv);
  return spec;
}

/** A message as one printable line: line breaks folded, and control, escape and bidi characters (quoted from input) as spaces. */
function oneLine(text: string): string {
  return printable(text.replace(/\s*\n\s*/g, ' '));
}

export async function main(argv: string[]): Promise<number> {
  const program = buildProgram({ argv });
  try {
    await program.parseAsync(argv);
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (error) {
    const { code, line } = exitOfError(error);
    if (line !== undefined) process.stderr.write(`coldstart: ${line}\n`);
    return code;
  }
}

/**
 * Every error a command ends with, mapped to its exit code (metrics/core/exit-codes.ts) and its one line
 * (undefined: nothing to say, as after --help): the user's mistakes, the machine's refusals, the
 * commands' own codes, and anything else as a bug (EXIT_BUG, never a verdict's code).
 */
export function exitOfError(error: unknown): { code: number; line?: string } {
  if (error instanceof CommanderError) {
    if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version' || error.code === 'commander.help')
      return { code: EXIT_OK };
    // an option parser's UsageError reaches us wrapped by commander: show its own line
    return { code: EXIT_USAGE, line: oneLine(error.message.replace(/^error: /, '').replace(/\s*\n\s*/g, ' ')) };
  }
  // its message may quote what the user typed (a --request with CR/LF): one printable line
  if (error instanceof UsageError) return { code: EXIT_USAGE, line: oneLine(error.message) };
  if (error instanceof ExitCodeError) return { code: error.exitCode, line: oneLine(error.message) };
  if (error instanceof EnvironmentError) return { code: EXIT_ENVIRONMENT, line: oneLine(error.message) };
  // the machine refused a file the code did not expect to be refused: still the machine's, named
  const { code, path: file, syscall } = (error ?? {}) as NodeJS.ErrnoException;
  if (code && file) return { code: EXIT_ENVIRONMENT, line: `cannot ${syscall ?? 'use'} ${oneLine(file)} (${code})` };
  return { code: EXIT_BUG, line: `internal error: ${oneLine(error instanceof Error ? error.message : String(error))}` };
}

/** The names npm runs the command line under: each command's name and its script's (a test checks package.json against them). */
export function commandScripts(): Set<string> {
  return new Set(buildProgram().commands.flatMap((command) => [command.name(), ...command.aliases()]));
}

/**
 * The command line as a process runs it (the npm scripts, `npx coldstart`): from the folder the user
 * ran it in (invocation.ts), a closed stdout or stderr handled as an interrupt; returns the exit code.
 */
export async function runCli(argv: string[]): Promise<number> {
  guardClosedOutput();
  const dir = invocationDir(process.env, process.cwd(), PROJECT_ROOT, commandScripts());
  try {
    if (dir !== process.cwd()) process.chdir(dir);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    process.stderr.write(`coldstart: cannot work from ${oneLine(dir)}, where npm says the command was run (INIT_CWD): ${code}\n`);
    return EXIT_ENVIRONMENT;
  }
  return withClosedOutput(await main(argv));
}

if (import.meta.url === `file://${process.argv[1]}` || process.argv[1]?.endsWith(path.join('metrics', 'cli', 'main.ts'))) {
  process.exitCode = await runCli(process.argv);
}
