/** `lambda-reference` (npm run lambda:reference): its options; the table is built by pipeline/lambda-reference.ts. */
import path from 'node:path';
import { Option, type Command } from 'commander';
import { ARCHITECTURE_CHOICES, parseArchitecture, type Architecture } from '../core/lambda-platform.ts';
import { SHIPPED_REFERENCE_FILE } from '../core/lambda-reference.ts';
import { runLambdaReference } from '../pipeline/lambda-reference.ts';

interface LambdaReferenceOpts {
  lambdaPerf: string[];
  reports: string[];
  lambdaRuntime?: string;
  /** the old spelling of --lambda-runtime */
  runtime?: string;
  arch?: Architecture;
  /** the old spelling of --arch */
  architecture?: Architecture;
  out: string;
}

export function registerLambdaReferenceCommand(program: Command): void {
  program
    .command('lambda-reference')
    .description(
      "rebuild the calibration table (real cold starts of the hello-world reference) from lambda-perf's data files or your REPORT lines",
    )
    .option('--lambda-perf <files...>', 'maxday/lambda-perf data files (data/YYYY-MM-DD.json)', [])
    .option('--reports <files...>', 'REPORT lines (text, Logs Insights CSV or JSON) of the reference function you deployed', [])
    .option(
      '--lambda-runtime <line>',
      'the runtime line of --reports (nodejs22.x, nodejs24.x; --runtime: old spelling of --lambda-runtime)',
    )
    .addOption(new Option('--runtime <line>').hideHelp().conflicts('lambdaRuntime'))
    .addOption(
      new Option(
        '--arch <arch>',
        `the architecture of --reports: ${ARCHITECTURE_CHOICES} (--architecture: old spelling of --arch)`,
      ).argParser((text: string) => parseArchitecture('--arch', text)),
    )
    .addOption(
      new Option('--architecture <arch>')
        .hideHelp()
        .conflicts('arch')
        .argParser((text: string) => parseArchitecture('--architecture', text)),
    )
    .option('--out <file>', 'where to write the table', SHIPPED_REFERENCE_FILE)
    .action((opts: LambdaReferenceOpts) => {
      runLambdaReference(
        {
          lambdaPerf: opts.lambdaPerf,
          reports: opts.reports,
          runtime: opts.lambdaRuntime ?? opts.runtime,
          architecture: opts.arch ?? opts.architecture,
          out: path.resolve(opts.out),
        },
        (line) => process.stdout.write(line + '\n'),
      );
    });
}
