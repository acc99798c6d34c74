/** `lambda-package` (npm run lambda:package): its options and what it prints; the packaging is pipeline/lambda-package.ts. */
import { Option, type Command } from 'commander';
import {
  ARCHITECTURE_CHOICES,
  DEFAULT_ARCHITECTURE,
  DEFAULT_LAMBDA_RUNTIME,
  DEFAULT_MEMORY_MB,
  LAMBDA_RUNTIME_NAMES,
  parseArchitecture,
  parseLambdaRuntime,
  type Architecture,
  type LambdaRuntimeLine,
} from '../core/lambda-platform.ts';
import { packageLambda, type LambdaPackageOutcome } from '../pipeline/lambda-package.ts';
import { addSelectionOptions, selectionOf } from './options.ts';
import { parseMemory } from '../core/parse.ts';
import { displayPath } from './shared.ts';

type LambdaPackageOpts = Record<string, unknown> & {
  out: string;
  memory: number;
  arch: Architecture;
  /** the old spelling of --arch */
  architecture?: Architecture;
  lambdaRuntime: LambdaRuntimeLine;
  /** the old spelling of --lambda-runtime */
  runtime?: LambdaRuntimeLine;
};

function kilobytes(bytes: number): string {
  return `${(bytes / 1024).toFixed(1)} kB`;
}

/** The zips, the cells left out, the template; exit code 1 when nothing could be packaged. */
function printOutcome({ written, leftOut }: LambdaPackageOutcome): void {
  for (const f of written?.functions ?? []) process.stdout.write(`${displayPath(f.zip)}  ${kilobytes(f.bytes)}\n`);
  for (const cell of leftOut) process.stdout.write(`left out: ${cell.name}: ${cell.reason}\n`);
  if (!written) {
    process.stderr.write(`coldstart: no cell could be packaged (${leftOut.length} left out): nothing written\n`);
    process.exitCode = 1;
    return;
  }
  const count = `${written.functions.length} function${written.functions.length === 1 ? '' : 's'}`;
  process.stdout.write(`template: ${displayPath(written.template)} (${count}; to deploy and measure: ${displayPath(written.readme)})\n`);
}

/** `--arch` and `--lambda-runtime` (old spellings `--architecture` and `--runtime`, hidden and said in --help). */
function addPlatformOptions(command: Command): Command {
  return command
    .addOption(
      new Option(
        '--arch <arch>',
        `the Architecture parameter of the template: ${ARCHITECTURE_CHOICES} (--architecture: old spelling of --arch)`,
      )
        .default(DEFAULT_ARCHITECTURE)
        .argParser((text: string) => parseArchitecture('--arch', text)),
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
        `the Lambda runtime of every function, ${LAMBDA_RUNTIME_NAMES.join(' or ')} (the bundles target its Node line; ` +
          'a deprecated line is refused with its date; --runtime: old spelling of --lambda-runtime)',
      )
        .default(DEFAULT_LAMBDA_RUNTIME)
        .argParser((text: string) => parseLambdaRuntime('--lambda-runtime', text, false)),
    )
    .addOption(
      new Option('--runtime <runtime>')
        .hideHelp()
        .conflicts('lambdaRuntime')
        .argParser((text: string) => parseLambdaRuntime('--runtime', text, false)),
    );
}

export function registerLambdaPackageCommand(program: Command): void {
  const command = program
    .command('lambda-package')
    .description(
      'bundle the Lambda handler of every selected cell into a deployable zip, with an AWS SAM template.yaml (one function per cell)',
    );
  addSelectionOptions(command);
  command
    .requiredOption('-o, --out <dir>', 'the package folder (created if missing; refused when it already holds a package)')
    .addOption(
      new Option('--memory <MB>', 'the MemorySize parameter of the template, 128–10240 MB')
        .default(DEFAULT_MEMORY_MB)
        .argParser(parseMemory('--memory')),
    );
  addPlatformOptions(command).action(async (opts: LambdaPackageOpts) => {
    const outcome = await packageLambda(
      {
        ...selectionOf(opts),
        out: opts.out,
        memorySize: opts.memory,
        architecture: opts.architecture ?? opts.arch,
        runtime: opts.runtime ?? opts.lambdaRuntime,
      },
      (line) => process.stderr.write(`${line}\n`),
    );
    printOutcome(outcome);
  });
}
