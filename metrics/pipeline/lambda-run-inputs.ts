/**
 * What `lambda:run` deploys, its input: exactly one of
 * - a folder written by `lambda:package` (read as it is);
 * - the user's own handlers, `--handler FILE.export` as `measure` takes them (pipeline/apps.ts parses
 *   and checks them, `--event` is the request, `--cwd` the folder they are named from): each bundled
 *   by esbuild into one file, as a `measure --build bundle` cell is, and packaged as the function
 *   `coldstart-<app name>-1-plain`, the cell `measure` gives an app (framework = its name, 1 route,
 *   plain), so `compare` matches a local `measure --handler` run with the real one;
 * - generated cells, selected by the dimension table's flags as `run` and `lambda:package` select them
 *   (`--frameworks`, `--routes`, `--variant`, `--init` …), packaged by lambda:package's own pipeline.
 *
 * The last two are packaged into a scratch folder of the project's scratch mechanism (the temp folder,
 * named after this runner: a run killed before it removes it has it removed by the next run's
 * cleanLeftovers), removed when the run ends. Any mix of inputs, or a flag that does nothing for the
 * chosen one, is a UsageError (exit 2) naming them.
 */
import { LAMBDA_RUN_NO_WEB } from '../core/web-platform.ts';
import { closeSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { DEFAULT_EVENT_FORMAT, type EventFormat } from '../../generators/types.ts';
import { functionName, FunctionNameError, parseFunctionName } from '../core/function-name.ts';
import { displayPath } from '../core/display.ts';
import { DEFAULT_MEMORY_MB, LAMBDA_RUNTIME_NAMES, nodeOfLine, type Architecture, type LambdaRuntimeLine } from '../core/lambda-platform.ts';
import type { InitMode } from '../core/dimensions.ts';
import { ExitCodeError, UsageError } from '../core/errors.ts';
import type { GeneratedSource } from '../core/run-spec.ts';
import type { RecordedLambdaRunInput } from '../core/meta-spec.ts';
import { FUNCTIONS_DIR, TEMPLATE_FILE, writeLambdaPackage } from '../cloud/package.ts';
import { bundleFile, isModuleFile } from '../plan/bundle.ts';
import { cleanLeftovers, scratchPrefix } from '../measure/leftovers.ts';
import { appsOf, type AppsInput } from './apps.ts';
import { EVENT_FUNCTIONS, packageLambda } from './lambda-package.ts';
import { openInput, readBytesBounded, readTextBounded, sizeText } from '../store/input-files.ts';
import { EXIT_NOTHING_MADE } from '../core/exit-codes.ts';

export interface PackagedFunctionEntry {
  name: string;
  zip: string;
  runtime: string;
  eventFormat: EventFormat;
  /** the Handler setting (default index.handler, the package's) */
  handler?: string;
  /** the invocation's payload (default: the request of the cell's last route, from its name) */
  payload?: string;
}

type Template = { Resources?: Record<string, { Type?: string; Properties?: Record<string, unknown> } | null> } | null;

/** The functions of a package folder, from its template.yaml. */
/** The largest template.yaml read: a package of 2,000 functions writes about 2 MB. */
export const MAX_TEMPLATE_BYTES = 16 * 2 ** 20;
/** The largest zip uploaded: what Lambda takes in CreateFunction's ZipFile (50 MB, its documented quota). */
export const MAX_ZIP_BYTES = 50 * 2 ** 20;
const ZIP_WHAT = "a function's zip";

function checkedZip(zip: string): { fd: number; size: number } {
  const opened = openInput(zip, ZIP_WHAT);
  if (opened.size > MAX_ZIP_BYTES) {
    closeSync(opened.fd);
    throw new UsageError(`${zip} is too large: ${ZIP_WHAT} is at most ${sizeText(MAX_ZIP_BYTES)} (Lambda's quota for a direct upload)`);
  }
  return opened;
}

/** A packaged function's zip, read bounded (the bytes CreateFunction uploads). */
export function readZip(zip: string): Buffer {
  return readBytesBounded(zip, MAX_ZIP_BYTES, ZIP_WHAT);
}

export function readPackage(dir: string): PackagedFunctionEntry[] {
  const file = path.join(dir, TEMPLATE_FILE);
  if (!existsSync(file)) throw new UsageError(`${dir} is not a folder written by lambda:package (no ${TEMPLATE_FILE})`);
  let template: Template;
  // bounded and of its kind before it is read: a FIFO in its place is refused, not waited on
  const text = readTextBounded(file, MAX_TEMPLATE_BYTES, "a lambda:package folder's template");
  try {
    template = parseYaml(text) as Template;
  } catch (error) {
    throw new UsageError(`${file} is not YAML: ${(error as Error).message.split('\n')[0]}`);
  }
  const entries: PackagedFunctionEntry[] = [];
  for (const resource of Object.values(template?.Resources ?? {})) {
    if (resource?.Type === 'AWS::Serverless::WebFunction') throw new UsageError(LAMBDA_RUN_NO_WEB);
    if (resource?.Type !== 'AWS::Serverless::Function') continue;
    const props = resource.Properties ?? {};
    const name = props.FunctionName;
    const codeUri = props.CodeUri;
    if (typeof name !== 'string' || !parseFunctionName(name) || typeof codeUri !== 'string') {
      throw new UsageError(`${file}: a function without a packaged name (coldstart-<framework>-<routes>-<variant>) or CodeUri`);
    }
    const zip = path.join(dir, ...codeUri.split('/'));
    if (!zip.startsWith(path.join(dir, FUNCTIONS_DIR)) || !existsSync(zip))
      throw new UsageError(`${file}: ${name}'s zip ${codeUri} is missing`);
    // a folder, a FIFO, a device or more than Lambda takes, refused before anything is created
    closeSync(checkedZip(zip).fd);
    const events = props.Events as Record<string, { Properties?: { PayloadFormatVersion?: unknown } }> | undefined;
    const format = Object.values(events ?? {})[0]?.Properties?.PayloadFormatVersion;
    entries.push({
      name,
      zip,
      runtime: typeof props.Runtime === 'string' ? props.Runtime : '',
      eventFormat: format === '1.0' ? '1.0' : DEFAULT_EVENT_FORMAT,
    });
  }
  if (entries.length === 0) throw new UsageError(`${file} has no function`);
  return entries;
}

/** The options of measure's Apps group that `lambda:run --handler` takes: the handler, its event, its folder, its name. */
export type HandlerInput = Pick<AppsInput, 'handler' | 'event' | 'cwd' | 'name'>;

export type LambdaRunInput =
  | { kind: 'package'; dir: string }
  | { kind: 'handler'; apps: HandlerInput; /** where the command ran: --handler, --event and --cwd are relative to it */ base: string }
  | { kind: 'generated'; source: GeneratedSource; inits: InitMode[] };

/** What the command line gave, each input's flags by name (undefined: not given). */
export interface GivenInputs {
  packageDir?: string;
  /** measure's Apps flags, by their flag names */
  handler: { '--handler'?: unknown; '--event'?: unknown; '--cwd'?: unknown; '--name'?: unknown };
  /** the dimension table's selection flags, by their flag names */
  generated: Record<string, unknown>;
}

const given = (flags: Record<string, unknown>) => Object.keys(flags).filter((flag) => flags[flag] !== undefined);

/**
 * The one input the command line names. None, two, or a flag of an input not chosen (`--event`
 * without `--handler`) is refused with one line.
 */
export function inputKindOf(inputs: GivenInputs): 'package' | 'handler' | 'generated' {
  const handlerFlags = given(inputs.handler);
  const generatedFlags = given(inputs.generated);
  const kinds: string[] = [];
  if (inputs.packageDir !== undefined) kinds.push(`a package folder (${inputs.packageDir})`);
  if (inputs.handler['--handler'] !== undefined) kinds.push('--handler');
  if (generatedFlags.length) kinds.push(`generated cells (${generatedFlags.join(', ')})`);
  if (kinds.length > 1) {
    throw new UsageError(`lambda:run takes one input, got ${kinds.join(' and ')}: run it once for each`);
  }
  if (kinds.length === 0) {
    throw new UsageError(
      'lambda:run needs one input: a folder written by lambda:package, --handler FILE.export (with --event FILE), ' +
        'or generated cells (--frameworks, --routes)',
    );
  }
  const kind = inputs.packageDir !== undefined ? 'package' : inputs.handler['--handler'] !== undefined ? 'handler' : 'generated';
  const stray = kind === 'handler' ? [] : handlerFlags;
  if (stray.length) {
    const what = kind === 'package' ? 'a package folder' : 'generated cells';
    throw new UsageError(`${stray.join(', ')} ${stray.length > 1 ? 'are' : 'is'} for --handler only, not for ${what}`);
  }
  return kind;
}

/** An input made ready: its functions, what meta.json records of it, and the scratch folder to remove. */
export interface PreparedInput {
  packaged: PackagedFunctionEntry[];
  recorded: RecordedLambdaRunInput;
  /** removes the scratch folder (a package folder given has none); safe to call twice */
  dispose: () => void;
}

/** The oldest of the lines: a bundle for its Node runs on every later line too. */
function bundleLine(runtimes: readonly LambdaRuntimeLine[]): LambdaRuntimeLine {
  return LAMBDA_RUNTIME_NAMES.find((line) => runtimes.includes(line)) ?? runtimes[0]!;
}

/** A scratch folder of this runner (removed by dispose, or by the next run's sweep when this one is killed). */
function scratchFolder(warn: (line: string) => void): { dir: string; dispose: () => void } {
  cleanLeftovers(warn);
  const dir = mkdtempSync(scratchPrefix());
  const dispose = () => rmSync(dir, { recursive: true, force: true });
  return { dir, dispose };
}

/**
 * The functions of the input, packaged when it is not a package already. `runtimes` are the lines
 * the functions will run on (the bundles target the oldest); `architecture` goes into the template.
 */
export async function prepareInput(
  input: LambdaRunInput,
  context: {
    runtimes: readonly LambdaRuntimeLine[];
    architecture: Architecture;
    log: (line: string) => void;
    warn: (line: string) => void;
  },
): Promise<PreparedInput> {
  if (input.kind === 'package') {
    const dir = path.resolve(input.dir);
    return { packaged: readPackage(dir), recorded: { kind: 'package', folder: displayPath(dir) }, dispose: () => undefined };
  }
  // checked before the scratch folder is made: a mistake in a handler is named first
  const apps = input.kind === 'handler' ? appsOf({ ...input.apps }, input.base) : [];
  const scratch = scratchFolder(context.warn);
  try {
    const prepared =
      input.kind === 'handler'
        ? await packageHandlers(apps, input, scratch.dir, context)
        : await packageGenerated(input, scratch.dir, context);
    return { ...prepared, dispose: scratch.dispose };
  } catch (error) {
    scratch.dispose();
    throw error;
  }
}

async function packageGenerated(
  input: Extract<LambdaRunInput, { kind: 'generated' }>,
  scratch: string,
  context: {
    runtimes: readonly LambdaRuntimeLine[];
    architecture: Architecture;
    log: (line: string) => void;
    warn: (line: string) => void;
  },
): Promise<Omit<PreparedInput, 'dispose'>> {
  const dir = path.join(scratch, 'package');
  const outcome = await packageLambda(
    {
      ...input.source,
      out: dir,
      target: EVENT_FUNCTIONS,
      memorySize: DEFAULT_MEMORY_MB,
      architecture: context.architecture,
      runtime: bundleLine(context.runtimes),
      build: 'bundle',
      inits: input.inits,
    },
    context.log,
  );
  for (const cell of outcome.leftOut) context.warn(`left out: ${cell.name}: ${cell.reason}`);
  if (!outcome.written)
    throw new ExitCodeError(`no cell could be packaged (${outcome.leftOut.length} left out): nothing deployed`, EXIT_NOTHING_MADE);
  const { source } = input;
  return {
    packaged: readPackage(dir),
    recorded: {
      kind: 'generated',
      frameworks: source.frameworks === 'all' ? ['all'] : [...source.frameworks],
      routes: [...source.routes],
      variants: [...source.variants],
      inits: [...input.inits],
    },
  };
}

async function packageHandlers(
  apps: ReturnType<typeof appsOf>,
  input: Extract<LambdaRunInput, { kind: 'handler' }>,
  scratch: string,
  context: { runtimes: readonly LambdaRuntimeLine[]; architecture: Architecture; log: (line: string) => void },
): Promise<Omit<PreparedInput, 'dispose'>> {
  const line = bundleLine(context.runtimes);
  const target = nodeOfLine(line);
  context.log(`bundling ${apps.length} handler(s) with esbuild (target ${target}: one file each, as a function's zip holds it)…`);
  const cells = [];
  const handlers = new Map<string, { handler: string; payload: string }>();
  for (const app of apps) {
    const cell = { framework: app.name, variant: 'plain' as const, routes: 1 };
    let name: string;
    try {
      name = functionName(cell);
    } catch (error) {
      if (error instanceof FunctionNameError)
        throw new UsageError(`--handler ${displayPath(app.file)}: ${error.message}: give it a shorter --name`);
      throw error;
    }
    // an .mjs handler is bundled as an ES module (plan/bundle.ts): zipped as index.mjs, which Lambda's runtime loads as one
    const extension = isModuleFile(app.file) ? '.mjs' : '.js';
    const outcome = await bundleFile(app.file, path.join(scratch, 'bundle', `${app.name}${extension}`), target, 'bundle', true);
    if (!outcome.ok) throw new UsageError(`--handler ${displayPath(app.file)}: ${outcome.error}`);
    cells.push({ cell, bundle: outcome.file });
    handlers.set(name, { handler: `index.${app.exportName ?? 'handler'}`, payload: JSON.stringify(app.event ?? {}) });
  }
  const dir = path.join(scratch, 'package');
  writeLambdaPackage(dir, cells, { runtime: line, architecture: context.architecture });
  const packaged = readPackage(dir).map((entry) => ({ ...entry, ...handlers.get(entry.name)! }));
  return {
    packaged,
    recorded: {
      kind: 'handler',
      handlers: apps.map((app) => `${displayPath(app.file)} (${app.exportName ?? 'handler'}, as ${app.name})`),
      event: displayPath(path.resolve(input.base, String(input.apps.event))),
    },
  };
}

/** The input in words, for the plan and the Method line of summary.md. */
export function describeInput(recorded: RecordedLambdaRunInput): string {
  switch (recorded.kind) {
    case 'package':
      return `the package ${recorded.folder}`;
    case 'handler':
      return `your handler${recorded.handlers.length > 1 ? 's' : ''} ${recorded.handlers.join(', ')}, bundled, event ${recorded.event}`;
    case 'generated':
      return (
        `generated cells: ${recorded.frameworks.join(', ')} at ${recorded.routes.join(', ')} route(s), ` +
        `${recorded.variants.join(', ')}, init ${recorded.inits.join(', ')}, packaged as lambda:package does`
      );
  }
}

/** How long a REPORT line missing from the tail is looked for in CloudWatch Logs, s (--logs-wait). */
export const DEFAULT_LOGS_WAIT_S = 60;
/** How long CreateFunction is retried while IAM propagates a role the run created, s (--role-wait). */
export const DEFAULT_ROLE_WAIT_S = 120;

export function checkRole(options: { role?: string; createRole: boolean }): void {
  if (!options.role && !options.createRole) throw new UsageError('lambda:run needs --role ARN or --create-role');
  if (options.role && options.createRole) throw new UsageError('--role and --create-role exclude each other');
}
