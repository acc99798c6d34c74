/**
 * `lambda-import` (npm run lambda:import): its options; the import itself is pipeline/lambda-import.ts.
 */
import { Option, type Command } from 'commander';
import { ARCHITECTURES, DEPRECATED_LAMBDA_RUNTIMES, LAMBDA_RUNTIME_NAMES, type Architecture } from '../core/lambda-platform.ts';
import { importLambda } from '../pipeline/lambda-import.ts';
import { parseChoice } from './parse.ts';
import { commandLine, displayPath } from './shared.ts';

/** Lines REPORT lines may come from: the current ones and, for older logs, the deprecated ones. */
const IMPORT_RUNTIMES = [...LAMBDA_RUNTIME_NAMES, ...Object.keys(DEPRECATED_LAMBDA_RUNTIMES)];

export function registerLambdaImportCommand(program: Command): void {
  program
    .command('lambda-import')
    .description(
      'read CloudWatch REPORT lines (text, or a Logs Insights CSV/JSON export) into a run folder of aws-lambda samples, then report it',
    )
    .argument('<files...>', 'files of REPORT lines: plain log text (.txt, .log), or a Logs Insights export (.csv, .json)')
    .requiredOption('-o, --out <dir>', 'the run folder to write (created if missing; refused when it already holds samples.jsonl)')
    .option(
      '--function <name>',
      'the function every report without a log group of its own belongs to (coldstart-<framework>-<routes>-<variant>)',
    )
    .addOption(
      new Option(
        '--architecture <arch>',
        `what the functions ran on, ${ARCHITECTURES.join(' or ')}: recorded with each sample, and the price the cost table uses`,
      ).argParser(parseChoice('--architecture', ARCHITECTURES)),
    )
    .addOption(
      new Option(
        '--runtime <runtime>',
        `the Lambda runtime the functions ran on, ${IMPORT_RUNTIMES.join(', ')} (recorded in meta.json)`,
      ).argParser(parseChoice('--runtime', IMPORT_RUNTIMES)),
    )
    .action(async (files: string[], opts: Record<string, unknown>) => {
      const outcome = await importLambda(
        {
          files,
          out: opts.out as string,
          command: commandLine(process.argv, 'lambda:import'),
          ...(typeof opts.function === 'string' ? { functionName: opts.function } : {}),
          ...(opts.architecture ? { architecture: opts.architecture as Architecture } : {}),
          ...(opts.runtime ? { runtime: opts.runtime as string } : {}),
        },
        (line) => process.stdout.write(`${line}\n`),
        (line) => process.stderr.write(`${line}\n`),
      );
      process.stdout.write(
        `results in ${displayPath(outcome.dir)} (summary.md; npm run report -- ${displayPath(outcome.dir)} rebuilds it)\n`,
      );
    });
}
