/**
 * `lambda-import` (npm run lambda:import): its options; the import itself is pipeline/lambda-import.ts.
 */
import { Option, type Command } from 'commander';
import {
  ARCHITECTURE_CHOICES,
  DEPRECATED_LAMBDA_RUNTIMES,
  LAMBDA_RUNTIME_NAMES,
  parseArchitecture,
  type Architecture,
} from '../core/lambda-platform.ts';
import { importLambda } from '../pipeline/lambda-import.ts';
import { parseChoice } from '../core/parse.ts';
import { commandLine, displayPath } from './shared.ts';

/** Lines REPORT lines may come from: the current ones and, for older logs, the deprecated ones. */
const IMPORT_RUNTIMES = [...LAMBDA_RUNTIME_NAMES, ...Object.keys(DEPRECATED_LAMBDA_RUNTIMES)];

interface LambdaImportOpts {
  out: string;
  function?: string;
  arch?: Architecture;
  /** the old spelling of --arch */
  architecture?: Architecture;
  lambdaRuntime?: string;
  /** the old spelling of --lambda-runtime */
  runtime?: string;
}

/** `--arch` and `--lambda-runtime` (old spellings `--architecture` and `--runtime`, hidden and said in --help). */
function addPlatformOptions(command: Command): Command {
  return command
    .addOption(
      new Option(
        '--arch <arch>',
        `what the functions ran on, ${ARCHITECTURE_CHOICES}: recorded with each sample, and the price the cost table uses ` +
          '(--architecture: old spelling of --arch)',
      ).argParser((text: string) => parseArchitecture('--arch', text)),
    )
    .addOption(
      new Option('--architecture <arch>')
        .hideHelp()
        .conflicts('arch')
        .argParser((text: string) => parseArchitecture('--architecture', text)),
    )
    .addOption(
      new Option(
        '--lambda-runtime <runtime>',
        `the Lambda runtime the functions ran on, ${IMPORT_RUNTIMES.join(', ')} (recorded in meta.json; ` +
          '--runtime: old spelling of --lambda-runtime)',
      ).argParser(parseChoice('--lambda-runtime', IMPORT_RUNTIMES)),
    )
    .addOption(
      new Option('--runtime <runtime>').hideHelp().conflicts('lambdaRuntime').argParser(parseChoice('--runtime', IMPORT_RUNTIMES)),
    );
}

export function registerLambdaImportCommand(program: Command): void {
  const command = program
    .command('lambda-import')
    .description(
      'read CloudWatch REPORT lines (text, or a Logs Insights CSV/JSON export) into a run folder of aws-lambda samples, then report it',
    )
    .argument('<files...>', 'files of REPORT lines: plain log text (.txt, .log), or a Logs Insights export (.csv, .json)')
    .requiredOption('-o, --out <dir>', 'the run folder to write (created if missing; refused when it already holds samples.jsonl)')
    .option(
      '--function <name>',
      'the function every report without a log group of its own belongs to (coldstart-<framework>-<routes>-<variant>)',
    );
  addPlatformOptions(command).action(async (files: string[], opts: LambdaImportOpts) => {
    const architecture = opts.arch ?? opts.architecture;
    const runtime = opts.lambdaRuntime ?? opts.runtime;
    const outcome = await importLambda(
      {
        files,
        out: opts.out,
        command: commandLine(process.argv, 'lambda:import'),
        ...(opts.function !== undefined ? { functionName: opts.function } : {}),
        ...(architecture ? { architecture } : {}),
        ...(runtime ? { runtime } : {}),
      },
      (line) => process.stdout.write(`${line}\n`),
      (line) => process.stderr.write(`${line}\n`),
    );
    process.stdout.write(
      `results in ${displayPath(outcome.dir)} (summary.md; npm run report -- ${displayPath(outcome.dir)} rebuilds it)\n`,
    );
  });
}
