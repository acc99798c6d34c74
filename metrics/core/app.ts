/**
 * The user's own app as `measure` runs it: a server entry or a Lambda handler, and how to ask it
 * for its first answer, with the checks of its name and file. The plan builds it from the options, the targets read it, and
 * meta.json records it.
 */
import path from 'node:path';
import { RE2JS } from 're2js';
import { UsageError } from './errors.ts';
import type { Target } from './dimensions.ts';

/** How the first request is sent to a server app and judged. */
export interface AppRequest {
  method: string;
  /** path and query, starting with / */
  path: string;
  /** the body's bytes as text (read from --body FILE), absent for none */
  body?: string;
  contentType?: string;
}

export interface AppExpectation {
  /** the status the answer must have (a Lambda result without statusCode counts as 200) */
  status: number;
  /** a regular expression the answer's body must match (RE2's syntax: core/app.ts parseBodyPattern) */
  bodyPattern?: string;
}

export interface AppSpec {
  /** its name in cell labels and tables (`framework` of its cells) */
  name: string;
  kind: Target;
  /** absolute path of the entry (server) or of the handler's module (lambda) */
  file: string;
  /** lambda: the export that is the handler (a dotted path reaches a nested one, as Lambda's Handler setting does) */
  exportName?: string;
  /**
   * lambda: the folder Lambda's runtime gets as LAMBDA_TASK_ROOT (/var/task there): the folder the
   * handler was named from (--cwd, else where the command ran) when the handler lies inside it, else
   * the handler's own folder; the handler runs in it
   */
  taskRoot?: string;
  /** lambda: Lambda's Handler setting (_HANDLER) for that task root: `src/index.handler` */
  handler?: string;
  /**
   * lambda: the export that initialises the handler's module (`--init-export`): its eager cells await it
   * in INIT (generators/app-eager.ts); absent, the handler runs as written (lazy) only
   */
  initExport?: string;
  /** an eager cell's app (set by the planner, never recorded): the user's handler module its wrapper (`file`) loads */
  eagerOf?: string;
  /** server: arguments after the entry */
  args: string[];
  /** the folder the app runs in */
  cwd: string;
  /** server: the first request */
  request?: AppRequest;
  /** lambda: the event (any JSON) */
  event?: unknown;
  expect: AppExpectation;
  /** variables the app needs (--env NAME=VALUE), on top of the clean environment; meta.json keeps their names only */
  env?: Record<string, string>;
  /** server: `auto` gives the app a free port in PORT and requires it to listen there; 0 sets PORT=0 and takes any port */
  port: 'auto' | 0;
  /** with several builds: the plain build's answer every other build of this app must give again (set by the planner, never recorded) */
  sameAs?: { reference: AnswerReference; base: boolean };
}

/** The first answer of an app's plain build, shared by every cell of the app: what its other builds must answer too. */
/** The start of the failure reason of a variant whose answer differs from its plain build's (the answer table leaves it unranked). */
export const ANSWERS_DIFFERENTLY = 'answers differently from the plain build';

export interface AnswerReference {
  answer?: { status: number; body: string };
}

/** A name for tables and Lambda function names: lowercase letters, digits and single dashes. */
export const APP_NAME = /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/;
export const MAX_APP_NAME = 40;

/** The name an app gets from its file when the user gives none: `src/Orders API.mjs` → `orders-api`. */
export function appNameOf(file: string): string {
  const base = path
    .basename(file, path.extname(file))
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, MAX_APP_NAME)
    .replace(/-+$/, '');
  return /^[a-z]/.test(base) ? base : `app-${base || 'entry'}`.replace(/-+$/, '');
}

/** A user's name for an app, checked; a bad one is a UsageError. */
export function checkAppName(name: string): string {
  if (!APP_NAME.test(name) || name.length > MAX_APP_NAME) {
    throw new UsageError(
      `--name: "${name}" is not a name (lowercase letters, digits and single dashes, starting with a letter, up to ${MAX_APP_NAME})`,
    );
  }
  return name;
}

/**
 * Where Lambda's runtime finds a handler: LAMBDA_TASK_ROOT and the Handler setting relative to it.
 * The task root is `root` (the folder the handler was named from) when the file lies inside it, so
 * `--handler src/index.handler` is the Handler setting of a function zipped from that folder; a file
 * outside it is its own folder's `index.handler`. The module part never has a dot (Lambda's client
 * reads the module up to the first dot of the last segment).
 */
export function lambdaTaskRoot(file: string, exportName: string, root: string): { taskRoot: string; handler: string } {
  const resolved = path.resolve(file);
  const relative = path.relative(root, resolved);
  const inside = relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative);
  const taskRoot = inside ? path.resolve(root) : path.dirname(resolved);
  const module = path.relative(taskRoot, resolved).slice(0, -path.extname(resolved).length || undefined);
  return { taskRoot, handler: `${module.split(path.sep).join('/')}.${exportName}` };
}

/**
 * `--init-export NAME`: the export of a handler's module that initialises it, a JavaScript identifier
 * (its eager cell's wrapper names it in its text: generators/app-eager.ts).
 */
export function parseInitExport(text: string): string {
  if (!/^[A-Za-z_$][\w$]*$/.test(text))
    throw new UsageError(`--init-export: "${text.slice(0, 60)}" is not a JavaScript identifier (e.g. init)`);
  return text;
}

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'] as const;

/** The first request to a server app, its body's content type and the status it must answer with, when not given. */
export const DEFAULT_REQUEST: Readonly<AppRequest> = { method: 'GET', path: '/' };
export const DEFAULT_CONTENT_TYPE = 'application/json';
export const DEFAULT_STATUS = 200;

/** `--request 'POST /orders'`: a method and a path starting with /. */
export function parseRequest(text: string): { method: string; path: string } {
  // the path in visible ASCII only (a request line carries nothing else; other characters are percent-encoded)
  const match = /^\s*([A-Za-z]+)\s+(\/[\x21-\x7e]*)\s*$/.exec(text);
  const method = match?.[1]?.toUpperCase();
  if (!match?.[2] || !method || !(METHODS as readonly string[]).includes(method)) {
    throw new UsageError(`--request: "${text}" is not "METHOD /path" (METHOD one of ${METHODS.join(', ')})`);
  }
  return { method, path: match[2] };
}

/** `--content-type`: a media type (`type/subtype`, parameters after `;`) of visible ASCII: a header value carries no line break. */
export function parseContentType(text: string): string {
  if (!/^[A-Za-z0-9!#$&^_.+-]+\/[A-Za-z0-9!#$&^_.+-]+(\s*;[\x20-\x7e]*)?$/.test(text)) {
    throw new UsageError(
      `--content-type: "${text.slice(0, 80)}" is not a media type (type/subtype of visible ASCII, e.g. application/json)`,
    );
  }
  return text;
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

/**
 * `--expect-body`: a regular expression the first answer's body must match, in RE2's syntax (re2js: a
 * pure-JavaScript port of RE2 that matches in time linear in the body, whatever the pattern: a pattern
 * such as `^(a+)+$` cannot stall the runner on a long body as JavaScript's backtracking RegExp would).
 * What RE2 cannot express in linear time (lookahead, lookbehind, backreferences) is refused here, before
 * any sample (exit 2, one line).
 */
export function parseBodyPattern(text: string): string {
  try {
    RE2JS.compile(text);
  } catch (error) {
    const reason = (error as Error).message.replace(/^error parsing regexp: /, '');
    throw new UsageError(
      `--expect-body: not a pattern the linear-time engine (RE2) can run: ${reason} ` +
        '(RE2 has no lookahead, lookbehind or backreference; docs/guide/measure-your-app.md#the-expected-body)',
    );
  }
  return text;
}

/** The last pattern compiled (a run checks every answer against the same one). */
let compiled: { text: string; pattern: RE2JS } | undefined;

/** Whether `body` contains a match of the `--expect-body` pattern (RE2 semantics, linear in the body's length). */
export function bodyMatches(text: string, body: string): boolean {
  if (compiled?.text !== text) compiled = { text, pattern: RE2JS.compile(text) };
  return compiled.pattern.test(body);
}
