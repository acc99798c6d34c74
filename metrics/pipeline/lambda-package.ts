/**
 * `lambda-package` (npm run lambda:package), the use case: the Lambda files of the selection, each bundled by esbuild
 * for the chosen Lambda runtime, written as a deployable package (metrics/cloud/package.ts): one zip per
 * cell, an AWS SAM template.yaml and a README.txt. A cell that cannot be packaged (its framework has no
 * adapter, its bundle fails) is listed with its reason and left out; when no cell can be packaged,
 * nothing is written and the exit code is 1.
 */
import path from 'node:path';
import { functionName, type FunctionCell } from '../core/function-name.ts';
import { checkPackageDir, writeLambdaPackage, type PackageCell, type PackageResult } from '../cloud/package.ts';
import { cellFile, cellFilePath, cellKey, cellLabel, type Cell } from '../core/cell.ts';
import { bundleFile, bundlePath } from '../plan/bundle.ts';
import { generateCells, type Selection } from '../plan/cells.ts';
import { UsageError } from '../core/errors.ts';
import { generatedTarget, DEFAULT_SCHEMA, DEFAULT_SHAPE, type InitMode } from '../core/dimensions.ts';
import type { PackageBuild } from '../core/parse.ts';
import { nodeOfLine, type Architecture, type LambdaRuntimeLine } from '../core/lambda-platform.ts';
import { readsHttpEndpoint, writeWebPackage, type WebPackageCell } from '../cloud/web-package.ts';
import { readFileSync } from 'node:fs';
import { WEB_FUNCTION_RUNTIME } from '../cloud/web-function-template.ts';

/**
 * What `--target` packages: Lambda event functions (a handler behind an adapter, SAM Function), or Lambda
 * Web Functions (the generated server itself as index.js, SAM WebFunction). A Web Function runs the
 * server's file as the lambda-web target writes it: the same server, listening on AWS_LAMBDA_HTTP_ENDPOINT.
 */
export const PACKAGE_TARGETS = {
  lambda: { fileTarget: 'lambda', web: false },
  'lambda-web': { fileTarget: 'lambda-web', web: true },
} as const;
export type PackageTarget = keyof typeof PACKAGE_TARGETS;
/** The package of event functions, lambda:package's default (and what lambda:run deploys). */
export const EVENT_FUNCTIONS: PackageTarget = 'lambda';

/** The cells to package: the selection (every cell is a Lambda one). */
export type PackageSelection = Selection;

export interface LambdaPackageOptions extends PackageSelection {
  out: string;
  memorySize: number;
  architecture: Architecture;
  /** the Lambda runtime line of every function (the lines Lambda cells run on); its bundles target the line's Node */
  runtime: LambdaRuntimeLine;
  /** the bundle as it is, or minified: the builds of the levers that ship one file */
  build: PackageBuild;
  /** the init modes packaged (eager: an ES module, index.mjs in its zip, its function name ending in -eager) */
  inits: readonly InitMode[];
  /** event functions or Web Functions (the CLI's --target, lambda by default) */
  target: PackageTarget;
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
  return { framework: cell.framework, variant: cell.variant, routes: cell.routes, ...(cell.init === 'eager' ? { init: cell.init } : {}) };
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
  if (PACKAGE_TARGETS[options.target].web) return packageWeb(dir, options, log);
  // an eager file is an ES module: bundled as one (plan/bundle.ts), index.mjs in its zip (cloud/package.ts)
  const generated = await generateCells({ ...options, targets: ['lambda'], lambdaReference: false, inits: [...options.inits] }, log);
  const target = nodeOfLine(options.runtime);
  const { build } = options;
  const packaged: PackageCell[] = [];
  const leftOut: LeftOutCell[] = [];
  const how = `target ${target}${build === 'bundle-min' ? ', minified' : ''}`;
  log(`bundling ${generated.cells.length - generated.unsupported.size} files with esbuild (${how}, cached in generated/bundle/)…`);
  for (const cell of generated.cells) {
    const unsupported = generated.unsupported.get(cellKey(cell));
    if (unsupported) {
      leftOut.push({ cell, name: nameOf(cell), reason: unsupported });
      continue;
    }
    const outcome = await bundleFile(cellFilePath(cell), bundlePath(cellFile(cell), target, build), target, build);
    if (!outcome.ok) {
      leftOut.push({ cell, name: nameOf(cell), reason: outcome.error });
      continue;
    }
    const generator = generated.generators.get(generatedTarget(cell.target))?.get(cell.framework);
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

/** Web Functions: every selected framework's generated server, bundled for Node 24 as one CommonJS file. */
async function packageWeb(dir: string, options: LambdaPackageOptions, log: (line: string) => void): Promise<LambdaPackageOutcome> {
  const fileTarget = PACKAGE_TARGETS['lambda-web'].fileTarget;
  const generated = await generateCells({ ...options, targets: [fileTarget], lambdaReference: false, inits: ['lazy'] }, log);
  const target = nodeOfLine(WEB_FUNCTION_RUNTIME);
  log(`bundling ${generated.cells.length - generated.unsupported.size} servers with esbuild (target ${target}, Web Functions)…`);
  const packaged: WebPackageCell[] = [];
  const leftOut: LeftOutCell[] = [];
  for (const cell of generated.cells) {
    const unsupported = generated.unsupported.get(cellKey(cell));
    if (unsupported) {
      leftOut.push({ cell, name: nameOf(cell), reason: unsupported });
      continue;
    }
    const outcome = await bundleFile(cellFilePath(cell), bundlePath(cellFile(cell), target, options.build), target, options.build);
    if (!outcome.ok) {
      leftOut.push({ cell, name: nameOf(cell), reason: outcome.error });
      continue;
    }
    if (!readsHttpEndpoint(readFileSync(outcome.file, 'utf8')))
      log(`warning: ${nameOf(cell)}'s server never reads AWS_LAMBDA_HTTP_ENDPOINT: on Lambda it would not be seen listening`);
    packaged.push({ cell: functionCell(cell), bundle: outcome.file });
  }
  if (packaged.length === 0) return { written: undefined, leftOut };
  return { written: writeWebPackage(dir, packaged), leftOut };
}
