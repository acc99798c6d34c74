/**
 * `lambda-import` (npm run lambda:import): its options; the import itself is pipeline/lambda-import.ts.
 */
import { toolCommand } from '../core/speak.ts';
import type { Command as PlainCommand } from 'commander';
import { Command, Option } from '@commander-js/extra-typings';
import { ARCHITECTURE_CHOICES, DEPRECATED_LAMBDA_RUNTIMES, LAMBDA_RUNTIME_NAMES, parseArchitecture } from '../core/lambda-platform.ts';
import { parseChoice } from '../core/parse.ts';
import { importLambda } from '../pipeline/lambda-import.ts';
import { importWebFunctions, isWebFunctionsLog } from '../pipeline/lambda-import-web.ts';
import { checkOutDir } from '../store/out-dir.ts';
import { RUN_FOLDER } from '../store/meta-file.ts';
import path from 'node:path';
import { addTypedCommand, oldSpelling } from './groups/common.ts';
import { commandLine, displayPath, say, tell } from './shared.ts';
import { UsageError } from '../core/errors.ts';

/** Lines REPORT lines may come from: the current ones and, for older logs, the deprecated ones. */
const IMPORT_RUNTIMES = [...LAMBDA_RUNTIME_NAMES, ...Object.keys(DEPRECATED_LAMBDA_RUNTIMES)];

const importRuntime = (option: string, text: string) => parseChoice(option, IMPORT_RUNTIMES)(text);

function lambdaImportCommand() {
  return new Command('lambda-import')
    .description(
      'read CloudWatch REPORT lines (text, or a Logs Insights CSV/JSON export) into a run folder of aws-lambda samples, then report it',
    )
    .argument(
      '<files...>',
      'files of REPORT lines: plain log text (.txt, .log; read line by line, a line over 1 MB skipped), ' +
        'or a Logs Insights export (.csv, .json; at most 64 MB)',
    )
    .addOption(
      new Option(
        '-o, --out <dir>',
        'the run folder to write (created if missing; refused when it already holds samples.jsonl)',
      ).makeOptionMandatory(),
    )
    .addOption(
      new Option(
        '--function <name>',
        'the function every report without a log group of its own belongs to (coldstart-<framework>-<routes>-<variant>)',
      ),
    )
    .addOption(
      new Option(
        '--arch <arch>',
        `what the functions ran on, ${ARCHITECTURE_CHOICES}: recorded with each sample, and the price the cost table uses ` +
          '(--architecture: old spelling of --arch)',
      ).argParser((text) => parseArchitecture('--arch', text)),
    )
    .addOption(oldSpelling('--architecture <arch>', '--arch', parseArchitecture))
    .addOption(
      new Option(
        '--lambda-runtime <runtime>',
        `the Lambda runtime the functions ran on, ${IMPORT_RUNTIMES.join(', ')} (recorded in meta.json; ` +
          '--runtime: old spelling of --lambda-runtime)',
      ).argParser((text) => importRuntime('--lambda-runtime', text)),
    )
    .addOption(oldSpelling('--runtime <runtime>', '--lambda-runtime', importRuntime))
    .addOption(
      new Option(
        '--estimate <run folder>',
        "Web Functions logs: a local run whose servers' time to ready (spawn → listening) is put beside each function's real cold starts",
      ),
    );
}

export function registerLambdaImportCommand(program: PlainCommand): void {
  const command = lambdaImportCommand().action(async (files, opts) => {
    const architecture = opts.arch ?? opts.architecture;
    const runtime = opts.lambdaRuntime ?? opts.runtime;
    // a folder of the user's is never written into: --out is new, empty or a run folder
    // (lambda:run checks its own --out before it writes logs/ there, and imports without this check)
    checkOutDir(path.resolve(opts.out), '--out', RUN_FOLDER);
    // Lambda Web Functions' system logs: their cold starts are platform.initReport lines, printed per function
    if (files.every((file) => isWebFunctionsLog(file))) {
      for (const line of importWebFunctions(files, opts.estimate).lines) say(line);
      return;
    }
    if (opts.estimate !== undefined)
      throw new UsageError('--estimate is for Web Functions logs; an event functions import is put beside a local run by compare');
    const outcome = await importLambda(
      {
        files,
        out: opts.out,
        command: commandLine(process.argv, 'lambda:import'),
        ...(opts.function !== undefined ? { functionName: opts.function } : {}),
        ...(architecture ? { architecture } : {}),
        ...(runtime ? { runtime } : {}),
      },
      say,
      tell,
    );
    say(`results in ${displayPath(outcome.dir)} (summary.md; ${toolCommand('report', [displayPath(outcome.dir)])} rebuilds it)`);
  });
  addTypedCommand(program, command);
}
