/** `lambda-reference` (npm run lambda:reference): its options; the table is built by pipeline/lambda-reference.ts. */
import path from 'node:path';
import type { Command as PlainCommand } from 'commander';
import { Command, Option } from '@commander-js/extra-typings';
import { ARCHITECTURE_CHOICES, parseArchitecture } from '../core/lambda-platform.ts';
import { DEFAULT_LAMBDA_PERF_DAYS, MAX_LAMBDA_PERF_FILES, SHIPPED_REFERENCE_FILE } from '../calibration/lambda-reference.ts';
import { parseInteger } from '../core/parse.ts';
import { runLambdaReference } from '../pipeline/lambda-reference.ts';
import { addTypedCommand, byDefault, oldSpelling } from './groups/common.ts';
import { say } from './shared.ts';

export function registerLambdaReferenceCommand(program: PlainCommand): void {
  const command = new Command('lambda-reference')
    .description(
      "rebuild the calibration table (real cold starts of the hello-world reference) from lambda-perf's data files or your REPORT lines",
    )
    .option(
      '--lambda-perf <paths...>',
      "maxday/lambda-perf data: its data/ folder (a clone's or a download's) or day files " +
        '(data/YYYY-MM-DD.json, each at most 64 MB; last.json is left out)',
      [],
    )
    .addOption(
      new Option(
        '--days <n>',
        'with --lambda-perf: the newest n days of data the table holds' + byDefault(DEFAULT_LAMBDA_PERF_DAYS),
      ).argParser(parseInteger('--days', 1, MAX_LAMBDA_PERF_FILES)),
    )
    .option(
      '--reports <files...>',
      'REPORT lines (text, Logs Insights CSV or JSON) of the reference function you deployed (as lambda-import reads them)',
      [],
    )
    .option(
      '--lambda-runtime <line>',
      'the runtime line of --reports (nodejs22.x, nodejs24.x; --runtime: old spelling of --lambda-runtime)',
    )
    .addOption(oldSpelling('--runtime <line>', '--lambda-runtime', (_option, text) => text))
    .addOption(
      new Option(
        '--arch <arch>',
        `the architecture of --reports: ${ARCHITECTURE_CHOICES} (--architecture: old spelling of --arch)`,
      ).argParser((text) => parseArchitecture('--arch', text)),
    )
    .addOption(oldSpelling('--architecture <arch>', '--arch', parseArchitecture))
    .option(
      '--out <file>',
      'where to write the table: a new file, or a calibration table (at most 64 MB) it replaces',
      SHIPPED_REFERENCE_FILE,
    )
    .action((opts) => {
      runLambdaReference(
        {
          lambdaPerf: opts.lambdaPerf,
          reports: opts.reports,
          runtime: opts.lambdaRuntime ?? opts.runtime,
          architecture: opts.arch ?? opts.architecture,
          out: path.resolve(opts.out),
          days: opts.days,
        },
        say,
      );
    });
  addTypedCommand(program, command);
}
