/**
 * The apps `measure` is given: every --entry and --handler resolved against the folder the command
 * ran in, each file checked, the request body and the event read (bounded), names given or derived.
 * Every mistake is a UsageError naming the option.
 */
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import {
  appNameOf,
  checkAppName,
  DEFAULT_CONTENT_TYPE,
  parseContentType,
  DEFAULT_REQUEST,
  DEFAULT_STATUS,
  envOf,
  lambdaTaskRoot,
  type AppExpectation,
  type AppRequest,
  type AppSpec,
} from '../core/app.ts';
import { checkAppFile } from '../store/input-files.ts';
import { displayPath } from '../core/display.ts';
import { UsageError } from '../core/errors.ts';
import { readTextBounded } from '../store/input-files.ts';
import { MAX_PAYLOAD_BYTES } from '../core/lambda-platform.ts';
import { parseList } from '../core/parse.ts';
import { planAppVersions } from '../plan/app-versions.ts';
import { TARGETS, type Target } from '../core/dimensions.ts';
import { targetKind } from '../core/kinds.ts';

/** What the options say of the apps (measure's Apps group), each as typed. */
export interface AppsInput {
  entry?: string[];
  /** the targets every --entry runs as (servers: server, lambda-web); default server */
  target?: Target[];
  handler?: string[];
  name?: string;
  request?: { method: string; path: string };
  body?: string;
  contentType?: string;
  expectStatus?: number;
  expectBody?: string;
  event?: string;
  port?: 'auto' | '0';
  cwd?: string;
  env?: string[];
  /** the export of every handler's module that initialises it (--init-export): the handlers' eager cells await it */
  initExport?: string;
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

/** The folder the apps run in and are named from: --cwd (against where the command ran), else where the command ran. */
export function appsFolder(opts: Pick<AppsInput, 'cwd'>, base: string): string {
  return typeof opts.cwd === 'string' ? path.resolve(base, opts.cwd) : base;
}

/** Every app the options name, in order (entries, then handlers), each checked. */
export function appsOf(opts: AppsInput, base: string): AppSpec[] {
  const entries = opts.entry ?? [];
  const handlers = opts.handler ?? [];
  if (entries.length + handlers.length === 0)
    throw new UsageError('measure: give a server with --entry FILE or a Lambda handler with --handler FILE.export');
  const cwd = appsFolder(opts, base);
  if (!existsSync(cwd) || !statSync(cwd).isDirectory()) throw new UsageError(`--cwd: ${displayPath(cwd)} is not a folder`);
  const request: AppRequest = { ...(opts.request ?? DEFAULT_REQUEST) };
  if (typeof opts.body === 'string') {
    request.body = readText('--body', path.resolve(base, opts.body));
    request.contentType = opts.contentType === undefined ? DEFAULT_CONTENT_TYPE : parseContentType(opts.contentType);
  }
  const expect: AppExpectation = {
    status: opts.expectStatus ?? DEFAULT_STATUS,
    ...(typeof opts.expectBody === 'string' ? { bodyPattern: opts.expectBody } : {}),
  };
  // the handler specs first: a mistake in one is named before a missing event
  const modules = handlers.map((spec) => parseHandler(spec, base));
  const event = handlers.length ? eventOf(opts.event, base) : undefined;
  const env = envOf(opts.env ?? []);
  const kinds = entryTargets(opts, entries.length);
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
        ...(opts.initExport === undefined ? {} : { initExport: opts.initExport }),
        ...env,
      };
    }),
  ];
  // named as given (an entry, a handler: one name each), then each entry as every target asked
  return named(apps, opts.name).flatMap((app, i) => (i < entries.length && kinds ? kinds.map((kind) => ({ ...app, kind })) : [app]));
}

/** The JSON event handlers are invoked with (--event FILE). */
function eventOf(file: string | undefined, base: string): unknown {
  if (typeof file !== 'string') throw new UsageError('--handler needs --event FILE: the JSON event to invoke it with');
  const text = readText('--event', path.resolve(base, file));
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new UsageError(`--event: ${file} is not JSON (${(error as Error).message})`);
  }
}

/** The apps under the names given (--name a,b,…, in order), the others under their files' names; two of one name are refused. */
/** The servers' targets an --entry runs as (`--target`): the targets that listen (server, lambda-web). */
export const ENTRY_TARGETS = TARGETS.filter((t) => !targetKind(t).handler);

/**
 * The targets of the entries: --target's (each a listening one); none given, each entry is a server; --target without --entry,
 * or --port where no target reads PORT, refused.
 */
function entryTargets(opts: AppsInput, entries: number): Target[] | undefined {
  const kinds = opts.target;
  if (kinds === undefined) return undefined;
  if (entries === 0)
    throw new UsageError(`--target is the targets of --entry servers (${ENTRY_TARGETS.join(', ')}): a --handler is a Lambda handler`);
  if (opts.port !== undefined && kinds.every((k) => targetKind(k).caps))
    throw new UsageError('--port: a Lambda Web Function listens on AWS_LAMBDA_HTTP_ENDPOINT, not on PORT (the runtime sets no PORT)');
  return [...new Set(kinds)];
}

function named(apps: AppSpec[], list: string | undefined): AppSpec[] {
  const names = typeof list === 'string' ? parseList('--name', list).map(checkAppName) : [];
  if (names.length > apps.length) throw new UsageError(`--name: ${names.length} names for ${apps.length} apps`);
  names.forEach((name, i) => (apps[i]!.name = name));
  const seen = new Set<string>();
  for (const app of apps) {
    if (seen.has(app.name)) throw new UsageError(`two apps are named "${app.name}": name them with --name a,b,…`);
    seen.add(app.name);
  }
  return apps;
}

/** `--versions` on apps: each package must be a dependency of one of them (its package.json), else a UsageError naming it. */
export function checkAppVersions(apps: readonly AppSpec[], versions: readonly string[]): void {
  planAppVersions(apps, versions);
}
