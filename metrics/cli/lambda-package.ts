/** `lambda-package` (npm run lambda:package): its options and what it prints; the packaging is pipeline/lambda-package.ts. */
import type { Command as PlainCommand } from 'commander';
import { Command, Option } from '@commander-js/extra-typings';
import {
  ARCHITECTURE_CHOICES,
  DEFAULT_ARCHITECTURE,
  DEFAULT_LAMBDA_RUNTIME,
  DEFAULT_MEMORY_MB,
  LAMBDA_RUNTIME_NAMES,
  parseArchitecture,
  parseLambdaRuntime,
} from '../core/lambda-platform.ts';
import { PACKAGE_BUILDS, parseChoiceList, parseMemory, parsePackageBuild } from '../core/parse.ts';
import { DIMENSIONS, INIT_MODES } from '../core/dimensions.ts';
import {
  EVENT_FUNCTIONS,
  packageLambda,
  PACKAGE_TARGETS,
  type LambdaPackageOutcome,
  type PackageTarget,
} from '../pipeline/lambda-package.ts';
import { UsageError } from '../core/errors.ts';
import { addTypedCommand, dimensionOption, oldSpelling } from './groups/common.ts';
import { addSourceGroup, sourceOf } from './groups/selection.ts';
import { displayPath, say, tell } from './shared.ts';
import { EXIT_NOTHING_MADE } from '../core/exit-codes.ts';

function kilobytes(bytes: number): string {
  return `${(bytes / 1024).toFixed(1)} kB`;
}

/** The zips, the cells left out, the template; exit EXIT_NOTHING_MADE when nothing could be packaged. */
function printOutcome({ written, leftOut }: LambdaPackageOutcome): void {
  for (const f of written?.functions ?? []) say(`${displayPath(f.zip)}  ${kilobytes(f.bytes)}`);
  for (const cell of leftOut) say(`left out: ${cell.name}: ${cell.reason}`);
  if (!written) {
    process.stderr.write(`coldstart: no cell could be packaged (${leftOut.length} left out): nothing written\n`);
    process.exitCode = EXIT_NOTHING_MADE;
    return;
  }
  const count = `${written.functions.length} function${written.functions.length === 1 ? '' : 's'}`;
  say(`template: ${displayPath(written.template)} (${count}; to deploy and measure: ${displayPath(written.readme)})`);
}

const lambdaLine = (option: string, text: string) => parseLambdaRuntime(option, text, false);

export function registerLambdaPackageCommand(program: PlainCommand): void {
  const lambdaPackage = new Command('lambda-package').description(
    'bundle the Lambda handler of every selected cell into a deployable zip, with an AWS SAM template.yaml (one function per cell)',
  );
  const command = addSourceGroup(lambdaPackage)
    .optionsGroup('Options:')
    .addOption(
      new Option(
        '-o, --out <dir>',
        'the package folder (created if missing; refused when it already holds a package)',
      ).makeOptionMandatory(),
    )
    .addOption(
      new Option('--memory <MB>', 'the MemorySize parameter of the template, 128–10240 MB')
        .default(DEFAULT_MEMORY_MB)
        .argParser(parseMemory('--memory')),
    )
    .addOption(
      new Option(
        '--arch <arch>',
        `the Architecture parameter of the template: ${ARCHITECTURE_CHOICES} (--architecture: old spelling of --arch)`,
      )
        .default(DEFAULT_ARCHITECTURE)
        .argParser((text) => parseArchitecture('--arch', text)),
    )
    .addOption(oldSpelling('--architecture <arch>', '--arch', parseArchitecture))
    .addOption(
      new Option(
        '--lambda-runtime <runtime>',
        `the Lambda runtime of every function, ${LAMBDA_RUNTIME_NAMES.join(' or ')} (the bundles target its Node line; ` +
          'a deprecated line is refused with its date; --runtime: old spelling of --lambda-runtime)',
      )
        .default(DEFAULT_LAMBDA_RUNTIME)
        .argParser((text) => lambdaLine('--lambda-runtime', text)),
    )
    .addOption(oldSpelling('--runtime <runtime>', '--lambda-runtime', lambdaLine))
    .addOption(
      new Option('--build <build>', `how each handler is bundled: ${PACKAGE_BUILDS.join(' or ')} (the same bundle, minified)`)
        .default(PACKAGE_BUILDS[0])
        .argParser(parsePackageBuild),
    )
    .addOption(
      new Option(
        '--target <target>',
        'lambda: event functions (a handler per cell, AWS::Serverless::Function); lambda-web: Lambda Web Functions ' +
          '(the generated server as index.js, AWS::Serverless::WebFunction on nodejs24.x, arm64; --memory, --arch, ' +
          '--lambda-runtime and --init do not apply)',
      )
        .default(EVENT_FUNCTIONS)
        .argParser((text): PackageTarget => {
          if (!Object.hasOwn(PACKAGE_TARGETS, text))
            throw new UsageError(`--target: "${text}" is not one of ${Object.keys(PACKAGE_TARGETS).join(', ')}`);
          return text as PackageTarget;
        }),
    )
    // the packages as before the lever by default: an eager handler is an ES module (index.mjs, a -eager name)
    .addOption(dimensionOption(DIMENSIONS.init, '--init', parseChoiceList('--init', INIT_MODES), undefined, 'lazy'))
    .action(async (opts) => {
      const outcome = await packageLambda(
        {
          ...sourceOf(opts),
          out: opts.out,
          memorySize: opts.memory,
          architecture: opts.architecture ?? opts.arch,
          runtime: opts.runtime ?? opts.lambdaRuntime,
          build: opts.build,
          inits: opts.init ?? ['lazy'],
          target: opts.target,
        },
        tell,
      );
      printOutcome(outcome);
    });
  addTypedCommand(program, command);
}
