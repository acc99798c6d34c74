/**
 * coldstart's command line (commander): one file per command in this folder, registered here. npm
 * scripts and the Makefile are thin doors into it. Every user mistake is one line on stderr and exit
 * 2; never a stack trace.
 */
import path from 'node:path';
import { Command, CommanderError } from 'commander';
import { EXIT_USAGE, UsageError } from '../core/errors.ts';
import { registerCleanCommand } from './clean.ts';
import { registerCompareCommand } from './compare.ts';
import { registerGenerateCommand } from './generate.ts';
import { registerHyperfineCommand } from './hyperfine.ts';
import { registerLambdaImportCommand } from './lambda-import.ts';
import { registerLambdaPackageCommand } from './lambda-package.ts';
import { registerLambdaReferenceCommand } from './lambda-reference.ts';
import { registerMeasureCommand } from './measure.ts';
import { registerMergeCommand } from './merge.ts';
import { registerReportCommand } from './report.ts';
import { registerRunCommand } from './run.ts';

const COMMANDS: ((program: Command) => void)[] = [
  registerRunCommand,
  registerMeasureCommand,
  registerGenerateCommand,
  registerReportCommand,
  registerHyperfineCommand,
  registerCompareCommand,
  registerMergeCommand,
  registerLambdaPackageCommand,
  registerLambdaImportCommand,
  registerLambdaReferenceCommand,
  registerCleanCommand,
];

export function buildProgram(): Command {
  const program = new Command('coldstart')
    .description('Cold-start metrics for Node.js HTTP frameworks as the number of routes grows')
    .showHelpAfterError(false)
    .exitOverride()
    .configureOutput({ writeErr: () => undefined });
  for (const register of COMMANDS) register(program);
  return program;
}

export async function main(argv: string[]): Promise<number> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version' || error.code === 'commander.help') return 0;
      // an option parser's UsageError reaches us wrapped by commander: show its own line
      process.stderr.write(`coldstart: ${error.message.replace(/^error: /, '').replace(/\s*\n\s*/g, ' ')}\n`);
      return EXIT_USAGE;
    }
    if (error instanceof UsageError) {
      process.stderr.write(`coldstart: ${error.message}\n`);
      return EXIT_USAGE;
    }
    process.stderr.write(`coldstart: internal error: ${(error as Error).message.replace(/\s*\n\s*/g, ' ')}\n`);
    return 1;
  }
}

if (import.meta.url === `file://${process.argv[1]}` || process.argv[1]?.endsWith(path.join('metrics', 'cli', 'main.ts'))) {
  process.exitCode = await main(process.argv);
}
