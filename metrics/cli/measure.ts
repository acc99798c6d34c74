/**
 * `measure` (npm run measure, npx coldstart measure): the cold start of the user's own server entries
 * and Lambda handlers, through the same run pipeline as `run` (session, sample runner, targets,
 * limits, levers, every output). Only where the cells come from differs: plan/apps.ts.
 */
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Command as PlainCommand } from 'commander';
import { Command, Option, type OptionValues } from '@commander-js/extra-typings';
import { appNameOf, checkAppFile, checkAppName, lambdaTaskRoot, type AppExpectation, type AppRequest, type AppSpec } from '../core/app.ts';
import { UsageError } from '../core/errors.ts';
import { readTextBounded } from '../core/files.ts';
import { MAX_PAYLOAD_BYTES } from '../core/lambda-platform.ts';
import { addTypedCommand, byDefault, type Empty, type OptsOf } from './groups/common.ts';
import { measureOption } from './groups/selection.ts';
import { parseChoice, parseInteger, parseList } from '../core/parse.ts';
import { addRunGroups, checkedSpec, depsOf, executeRun, specOfGroups, type ProgramHooks } from './run.ts';
import { commandLine, displayPath } from './shared.ts';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'] as const;

/** Where the user typed the command: npm runs scripts in the package's folder and says where it came from in INIT_CWD. */
export function invocationDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.INIT_CWD ?? process.cwd();
}

/** `--request 'POST /orders'`: a method and a path starting with /. */
export function parseRequest(text: string): { method: string; path: string } {
  const match = /^\s*([A-Za-z]+)\s+(\/\S*)\s*$/.exec(text);
  const method = match?.[1]?.toUpperCase();
  if (!match?.[2] || !method || !(METHODS as readonly string[]).includes(method)) {
    throw new UsageError(`--request: "${text}" is not "METHOD /path" (METHOD one of ${METHODS.join(', ')})`);
  }
  return { method, path: match[2] };
}

function parsePattern(text: string): string {
  try {
    new RegExp(text);
  } catch (error) {
    throw new UsageError(`--expect-body: ${(error as Error).message}`);
  }
  return text;
}

function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

/**
 * `--handler FILE.export`, read as Lambda reads its Handler setting: the module is the last path
 * segment up to its first dot (FILE.js, .mjs or .cjs, in that order, as Lambda's client tries them), the
 * rest the export, a dotted path reaching a nested one (`index.api.get`: the export `api`, its `get`).
 */
export function parseHandler(spec: string, base: string): { file: string; exportName: string } {
  const slash = Math.max(spec.lastIndexOf('/'), spec.lastIndexOf(path.sep));
  const dot = spec.indexOf('.', slash + 1);
  if (dot <= slash + 1 || dot === spec.length - 1) throw new UsageError(`--handler: "${spec}" is not FILE.export (e.g. src/index.handler)`);
  const exportName = spec.slice(dot + 1);
  if (!/^[A-Za-z_$][\w$]*(\.[A-Za-z_$][\w$]*)*$/.test(exportName)) throw new UsageError(`--handler: "${exportName}" is not an export name`);
  const stem = path.resolve(base, spec.slice(0, dot));
  const file = ['.js', '.mjs', '.cjs'].map((ext) => stem + ext).find(isFile);
  if (!file) throw new UsageError(`--handler: no module ${displayPath(stem)}(.js|.mjs|.cjs) for "${spec}"`);
  return { file, exportName };
}

function isFile(file: string): boolean {
  return existsSync(file) && statSync(file).isFile();
}

/** A request body or an event is at most what Lambda accepts as a payload (6 MB): read bounded, a device or pipe never waited on. */
function readText(option: string, file: string): string {
  try {
    return readTextBounded(file, MAX_PAYLOAD_BYTES, 'a request body or event');
  } catch (error) {
    if (error instanceof UsageError) throw new UsageError(`${option}: ${error.message}`);
    throw new UsageError(`${option}: cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
}

/**
 * `--entry "FILE ARGS…"`: the longest prefix at a space that names a file is the entry (so
 * `Orders API.mjs` is one file), the rest its arguments, split at spaces (no shell).
 */
export function entryOf(line: string, base: string): { file: string; args: string[] } {
  const words = line.trim().split(/\s+/);
  for (let n = words.length; n > 1; n--) {
    const file = words.slice(0, n).join(' ');
    if (isFile(path.resolve(base, file))) return { file, args: words.slice(n) };
  }
  return { file: words[0] ?? '', args: words.slice(1) };
}

/** `--env NAME=VALUE`, repeated: the apps' own variables. */
export function envOf(items: string[]): { env?: Record<string, string> } {
  if (items.length === 0) return {};
  const env: Record<string, string> = {};
  for (const item of items) {
    const match = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/s.exec(item);
    if (!match) throw new UsageError(`--env: "${item.slice(0, 60)}" is not NAME=VALUE`);
    env[match[1]!] = match[2]!;
  }
  return { env };
}

/** The command line for meta.json with every `--env` value left out (values may be secrets). */
export function withoutEnvValues(argv: string[]): string[] {
  return argv.map((arg, i) => {
    if (argv[i - 1] === '--env') return arg.replace(/=.*$/s, '=…');
    return arg.startsWith('--env=') ? arg.replace(/^(--env=[^=]*)=.*$/s, '$1=…') : arg;
  });
}

const DEFAULT_REQUEST = { method: 'GET', path: '/' };
const DEFAULT_CONTENT_TYPE = 'application/json';
const DEFAULT_STATUS = 200;

/** The apps: entries and handlers, and how each is asked for its first answer. */
export function addAppsGroup<A extends unknown[], O extends OptionValues, G extends OptionValues>(command: Command<A, O, G>) {
  return command
    .optionsGroup('Apps:')
    .addOption(
      new Option('--entry <file>', 'a server entry and its arguments ("dist/server.js --flag"); repeat for several').argParser(collect),
    )
    .addOption(
      new Option('--handler <file.export>', 'a Lambda handler module and its export (src/index.handler); repeat for several').argParser(
        collect,
      ),
    )
    .addOption(new Option('--name <list>', 'names for the apps in the order given (entries, then handlers); default: from the file names'))
    .addOption(
      new Option('--request <request>', 'the first request to a server: "METHOD /path"' + byDefault('GET /')).argParser(parseRequest),
    )
    .addOption(new Option('--body <file>', 'the body of that request, read from FILE (at most 6 MB)'))
    .addOption(new Option('--content-type <type>', 'the content type of --body' + byDefault(DEFAULT_CONTENT_TYPE)))
    .addOption(
      new Option('--expect-status <n>', 'the status the first answer must have' + byDefault(DEFAULT_STATUS)).argParser(
        parseInteger('--expect-status', 100, 599),
      ),
    )
    .addOption(new Option('--expect-body <regex>', "a regular expression the first answer's body must match").argParser(parsePattern))
    .addOption(
      new Option('--event <file>', 'the JSON event a handler is invoked with (API Gateway v1/v2, Function URL, or any JSON; at most 6 MB)'),
    )
    .addOption(
      new Option(
        '--port <port>',
        'auto: the app gets a free port in PORT and must listen on it; 0: PORT=0, any port counts' + byDefault('auto'),
      ).argParser(parseChoice('--port', ['auto', '0'] as const)),
    )
    .addOption(
      new Option(
        '--cwd <dir>',
        'the folder the apps run in (default: where you ran the command); a handler inside it runs in it, its Lambda task root',
      ),
    )
    .addOption(
      new Option('--env <name=value>', 'a variable the apps need (they get a clean environment); repeat for several').argParser(collect),
    )
    .addOption(measureOption());
}

type AppsOpts = OptsOf<ReturnType<typeof addAppsGroup<[], Empty, Empty>>>;

/** Every app the options name, in order (entries, then handlers), each checked. */
export function appsOf(opts: AppsOpts, base = invocationDir()): AppSpec[] {
  const entries = opts.entry ?? [];
  const handlers = opts.handler ?? [];
  if (entries.length + handlers.length === 0)
    throw new UsageError('measure: give a server with --entry FILE or a Lambda handler with --handler FILE.export');
  const cwd = typeof opts.cwd === 'string' ? path.resolve(base, opts.cwd) : base;
  if (!existsSync(cwd) || !statSync(cwd).isDirectory()) throw new UsageError(`--cwd: ${displayPath(cwd)} is not a folder`);
  const request: AppRequest = { ...(opts.request ?? DEFAULT_REQUEST) };
  if (typeof opts.body === 'string') {
    request.body = readText('--body', path.resolve(base, opts.body));
    request.contentType = opts.contentType ?? DEFAULT_CONTENT_TYPE;
  }
  const expect: AppExpectation = {
    status: opts.expectStatus ?? DEFAULT_STATUS,
    ...(typeof opts.expectBody === 'string' ? { bodyPattern: opts.expectBody } : {}),
  };
  // the handler specs first: a mistake in one is named before a missing event
  const modules = handlers.map((spec) => parseHandler(spec, base));
  let event: unknown;
  if (handlers.length) {
    if (typeof opts.event !== 'string') throw new UsageError('--handler needs --event FILE: the JSON event to invoke it with');
    const text = readText('--event', path.resolve(base, opts.event));
    try {
      event = JSON.parse(text) as unknown;
    } catch (error) {
      throw new UsageError(`--event: ${opts.event} is not JSON (${(error as Error).message})`);
    }
  }
  const env = envOf(opts.env ?? []);
  const apps: AppSpec[] = [
    ...entries.map((line): AppSpec => {
      const { file, args } = entryOf(line, base);
      const resolved = checkAppFile('--entry', path.resolve(base, file));
      return {
        name: appNameOf(resolved),
        kind: 'server',
        file: resolved,
        args,
        cwd,
        request,
        expect,
        port: opts.port === '0' ? 0 : 'auto',
        ...env,
      };
    }),
    ...modules.map(({ file, exportName }): AppSpec => {
      // the task root is where a handler runs, as /var/task on Lambda
      const { taskRoot, handler } = lambdaTaskRoot(file, exportName, cwd);
      return {
        name: appNameOf(file),
        kind: 'lambda',
        file,
        exportName,
        taskRoot,
        handler,
        args: [],
        cwd: taskRoot,
        event,
        expect,
        port: 'auto',
        ...env,
      };
    }),
  ];
  const names = typeof opts.name === 'string' ? parseList('--name', opts.name).map(checkAppName) : [];
  if (names.length > apps.length) throw new UsageError(`--name: ${names.length} names for ${apps.length} apps`);
  names.forEach((name, i) => (apps[i]!.name = name));
  const seen = new Set<string>();
  for (const app of apps) {
    if (seen.has(app.name)) throw new UsageError(`two apps are named "${app.name}": name them with --name a,b,…`);
    seen.add(app.name);
  }
  return apps;
}

export function registerMeasureCommand(program: PlainCommand, hooks: ProgramHooks = {}): void {
  const measure = new Command('measure').description(
    'measure the cold start of your own server entry (--entry) or Lambda handler (--handler), and where it goes by package ' +
      '(--measure, on run and measure alike, is how: time or instructions)',
  );
  const command = addRunGroups(addAppsGroup(measure), 'app').action(async (opts, self) => {
    const apps = appsOf(opts);
    const line = commandLine(withoutEnvValues([...(hooks.argv ?? process.argv)]), 'measure');
    const cells = opts.measure ? { measures: opts.measure } : {};
    const spec = checkedSpec(specOfGroups(opts, line, { kind: 'apps', apps }, cells), self);
    await (hooks.execute ?? executeRun)(spec, depsOf(opts.debugMode));
  });
  addTypedCommand(program, command);
}
