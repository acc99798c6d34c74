/**
 * `lambda-package` (npm run lambda:package): the Lambda files of the selection, each bundled by esbuild
 * for the chosen Lambda runtime, written as a deployable package (metrics/cloud/package.ts): one zip per
 * cell, an AWS SAM template.yaml and a README.txt. A cell that cannot be packaged (its framework has no
 * adapter, its bundle fails) is listed with its reason and left out; when no cell can be packaged,
 * nothing is written and the exit code is 1.
 */
import path from 'node:path';
import { Option, type Command } from 'commander';
import { functionName, type FunctionCell } from '../core/function-name.ts';
import { checkPackageDir, writeLambdaPackage, type PackageCell, type PackageResult } from '../cloud/package.ts';
import { cellFile, cellFilePath, cellKey, cellLabel, type Cell } from '../core/cell.ts';
import { bundleFile, bundlePath } from '../plan/bundle.ts';
import { generateCells } from '../plan/cells.ts';
import { UsageError } from '../core/errors.ts';
import { addSelectionOptions, selectionOf, type Selection } from './options.ts';
import { parseChoice, parseMemory } from './parse.ts';
import { displayPath } from './shared.ts';
import { type Target, DEFAULT_SCHEMA, DEFAULT_SHAPE } from '../core/dimensions.ts';
import {
  LAMBDA_RUNTIME_NAMES,
  nodeOfLine,
  parseLambdaRuntime,
  type LambdaRuntimeLine,
  ARCHITECTURES,
  type Architecture,
  DEFAULT_MEMORY_MB,
  DEFAULT_ARCHITECTURE,
  DEFAULT_LAMBDA_RUNTIME,
} from '../core/lambda-platform.ts';

/** The Lambda Node.js runtimes a package may name (the lines Lambda cells run on); its bundles target the line's Node. */
export type LambdaRuntime = LambdaRuntimeLine;

export interface LambdaPackageOptions extends Selection {
  out: string;
  memorySize: number;
  architecture: Architecture;
  runtime: LambdaRuntime;
}

export interface LeftOutCell {
  cell: Cell;
  /** the function the cell would have been, when it can be named */
  name: string;
  reason: string;
}

export interface LambdaPackageOutcome {
  /** undefined when no cell could be packaged (nothing was written) */
  written: PackageResult | undefined;
  leftOut: LeftOutCell[];
}

function functionCell(cell: Cell): FunctionCell {
  return { framework: cell.framework, variant: cell.variant, routes: cell.routes };
}

function nameOf(cell: Cell): string {
  try {
    return functionName(functionCell(cell));
  } catch {
    return cellLabel(cell);
  }
}

/** Generate, bundle and write the package; `log` gets progress lines. */
export async function packageLambda(options: LambdaPackageOptions, log: (line: string) => void): Promise<LambdaPackageOutcome> {
  // an AWS function's name carries framework, N and variant only: other shapes and schemas would collide
  if (options.shapes.some((v) => v !== DEFAULT_SHAPE) || options.schemas.some((v) => v !== DEFAULT_SCHEMA)) {
    throw new UsageError(
      `lambda:package packages the ${DEFAULT_SHAPE} shape with the ${DEFAULT_SCHEMA} schema only (function names do not carry them)`,
    );
  }
  const dir = path.resolve(options.out);
  // refused before anything is generated or bundled (that can take a while); checked again when written
  checkPackageDir(dir);
  const generated = await generateCells({ ...options, targets: ['lambda'] }, log);
  const target = nodeOfLine(options.runtime);
  const packaged: PackageCell[] = [];
  const leftOut: LeftOutCell[] = [];
  log(
    `bundling ${generated.cells.length - generated.unsupported.size} files with esbuild (target ${target}, cached in generated/bundle/)…`,
  );
  for (const cell of generated.cells) {
    const unsupported = generated.unsupported.get(cellKey(cell));
    if (unsupported) {
      leftOut.push({ cell, name: nameOf(cell), reason: unsupported });
      continue;
    }
    const outcome = await bundleFile(cellFilePath(cell), bundlePath(cellFile(cell), target), target);
    if (!outcome.ok) {
      leftOut.push({ cell, name: nameOf(cell), reason: outcome.error });
      continue;
    }
    const generator = generated.generators.get(cell.target as Target)?.get(cell.framework);
    const contract = generator?.contract;
    packaged.push({
      cell: functionCell(cell),
      bundle: outcome.file,
      ...(contract ? { contract } : {}),
      ...(generator?.eventFormat ? { eventFormat: generator.eventFormat } : {}),
    });
  }
  if (packaged.length === 0) return { written: undefined, leftOut };
  const written = writeLambdaPackage(dir, packaged, {
    runtime: options.runtime,
    memorySize: options.memorySize,
    architecture: options.architecture,
  });
  return { written, leftOut };
}

function kilobytes(bytes: number): string {
  return `${(bytes / 1024).toFixed(1)} kB`;
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
    )
    .addOption(
      new Option('--architecture <arch>', `the Architecture parameter of the template: ${ARCHITECTURES.join(' or ')}`)
        .default(DEFAULT_ARCHITECTURE)
        .argParser(parseChoice('--architecture', ARCHITECTURES)),
    )
    .addOption(
      new Option(
        '--runtime <runtime>',
        `the Lambda runtime of every function, ${LAMBDA_RUNTIME_NAMES.join(' or ')} (the bundles target its Node line; ` +
          'a deprecated line is refused with its date)',
      )
        .default(DEFAULT_LAMBDA_RUNTIME)
        .argParser((text: string) => parseLambdaRuntime('--runtime', text, false)),
    )
    .action(async (opts: Record<string, unknown>) => {
      const { written, leftOut } = await packageLambda(
        {
          ...selectionOf(opts),
          out: opts.out as string,
          memorySize: opts.memory as number,
          architecture: opts.architecture as Architecture,
          runtime: opts.runtime as LambdaRuntime,
        },
        (line) => process.stderr.write(`${line}\n`),
      );
      for (const f of written?.functions ?? []) process.stdout.write(`${displayPath(f.zip)}  ${kilobytes(f.bytes)}\n`);
      for (const cell of leftOut) process.stdout.write(`left out: ${cell.name}: ${cell.reason}\n`);
      if (!written) {
        process.stderr.write(`coldstart: no cell could be packaged (${leftOut.length} left out): nothing written\n`);
        process.exitCode = 1;
        return;
      }
      const count = `${written.functions.length} function${written.functions.length === 1 ? '' : 's'}`;
      process.stdout.write(
        `template: ${displayPath(written.template)} (${count}; to deploy and measure: ${displayPath(written.readme)})\n`,
      );
    });
}
