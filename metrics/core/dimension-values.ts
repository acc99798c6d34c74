/**
 * The value lists of the dimension table (dimensions.ts), each spelled once: every module imports them
 * from dimensions.ts, which re-exports this file (test/unit/dimension-lists.test.ts fails on a copy elsewhere).
 */
import { KNOWN_LAMBDA_RUNTIME_LINES, type KnownLambdaRuntimeLine } from './lambda-platform.ts';

// ---- the value lists ----

/** With the framework's validation of each body, or without (the same routes answering unchecked). */
export const VARIANTS = ['validated', 'plain'] as const;
export type Variant = (typeof VARIANTS)[number];

/** The route shapes of a generated file (generators/routes.ts says what each one is). */
export const SHAPES = ['flat', 'params', 'nested', 'rest'] as const;
export type Shape = (typeof SHAPES)[number];
/** The schema weight of the bodies: small (one field) or user (the ~1 KB User model). */
export const SCHEMAS = ['small', 'user'] as const;
export type Schema = (typeof SCHEMAS)[number];

/** Route counts a generated file may have. */
export const MIN_ROUTES = 1;
export const MAX_ROUTES = 100_000;
/** The route counts of a run that does not name any. */
export const DEFAULT_ROUTES: readonly number[] = [1, 10, 100, 500, 1000, 2000, 3000, 5000];

/**
 * Where a generated file runs: `server` is a long-running HTTP server on `listen`; `lambda` is an
 * AWS Lambda handler (`exports.handler`) behind the framework's adapter, driven through the Lambda
 * Runtime API; `lambda-web` is the server as Lambda Web Functions run it (listening on
 * AWS_LAMBDA_HTTP_ENDPOINT). Each has its own folder of generated files and is a `--target`; the
 * generators are server/'s and lambda/'s (lambda-web's files are the servers', generators/web.ts).
 */
export const TARGETS = ['server', 'lambda', 'lambda-web'] as const;
export type Target = (typeof TARGETS)[number];
/** The target of cells imported from AWS's REPORT lines (lambda:import): they ran the Lambda file on Lambda itself. */
export const AWS_LAMBDA_TARGET = 'aws-lambda';
/** Every target a cell may have, in the order tables show them: the server, the local Lambda, AWS's figures. */
export const CELL_TARGETS = [...TARGETS, AWS_LAMBDA_TARGET] as const;
export type CellTarget = (typeof CELL_TARGETS)[number];

/** The runtime binaries a server cell (or `--lambda-runtime node`) runs on (plan/runtimes.ts installs them). */
/** The pinned Node lines (installed on demand into .runtimes/). */
export const NODE_LINES = ['node22', 'node24'] as const;
export type NodeLine = (typeof NODE_LINES)[number];
export const RUNTIME_NAMES = ['node', ...NODE_LINES, 'bun'] as const;
export type RuntimeName = (typeof RUNTIME_NAMES)[number];
/** A cell's runtime: a binary, or the Lambda runtime line of a Lambda cell (the deprecated ones too: an old run may hold them). */
export const CELL_RUNTIMES = [...RUNTIME_NAMES, ...KNOWN_LAMBDA_RUNTIME_LINES] as const;
export type CellRuntime = RuntimeName | KnownLambdaRuntimeLine;

/**
 * As written; bundled by esbuild into one file; the same bundle minified; the bundle run once into a
 * V8 startup snapshot that the start deserializes (`measure`'s server entries only: plan/snapshot.ts).
 */
/** The builds esbuild bundles (the second minified): the only ones a Lambda package ships. */
export const BUNDLE_BUILDS = ['bundle', 'bundle-min'] as const;
export type BundleBuild = (typeof BUNDLE_BUILDS)[number];
export const BUILDS = ['plain', ...BUNDLE_BUILDS, 'snapshot'] as const;
export type Build = (typeof BUILDS)[number];
export const COMPILE_CACHES = ['off', 'cold', 'warm'] as const;
export type CompileCache = (typeof COMPILE_CACHES)[number];
/** How a Lambda cell's process starts (plan/lambda-bootstrap.ts). */
export const BOOTSTRAPS = ['ric', 'ric-noflags', 'probe'] as const;
export type Bootstrap = (typeof BOOTSTRAPS)[number];
/**
 * When a Lambda handler does its framework's initialisation (route and schema compilation, plugin
 * start): lazy = on the first event, as the file leaves it; eager = in INIT, as the adapter's
 * documentation advises for cold starts (generators/lambda/*.ts say which call and where it is documented).
 */
export const INIT_MODES = ['lazy', 'eager'] as const;
export type InitMode = (typeof INIT_MODES)[number];
export const FILE_CACHES = ['warm', 'cold'] as const;
export type FileCache = (typeof FILE_CACHES)[number];
/** How a cell is measured: timed (wall and CPU time) or counted (instructions under valgrind). */
export const MEASURES = ['time', 'instructions'] as const;
export type Measure = (typeof MEASURES)[number];
/** Where a cell's file comes from: generated for framework × N, or the user's own app (`measure`). */
export const SOURCES = ['generated', 'app'] as const;
export type Source = (typeof SOURCES)[number];
/** The `source` of a cell measured from the user's own entry or handler. */
export const APP_SOURCE = 'app' satisfies Source;

/**
 * A package at an exact version (`fastify@4.28.1`, `@fastify/aws-lambda@5.0.0`): a cell's `version`
 * when `--versions` gives its framework's (or adapter's, or validator's) package another version than
 * the project's; `installed` (the row's stored value) is the package as the project has it.
 */
export const INSTALLED_VERSION = 'installed';
const PACKAGE_VERSION = /^(?:@[a-z0-9][a-z0-9._~-]*\/)?[a-z0-9][a-z0-9._~-]*@\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/;
export function isPackageVersion(x: unknown): x is string {
  return typeof x === 'string' && x.length <= 214 && PACKAGE_VERSION.test(x);
}
/** `fastify@4.28.1` → { pkg: 'fastify', version: '4.28.1' } (the last `@` after the first character splits them). */
export function splitPackageVersion(value: string): { pkg: string; version: string } {
  const at = value.lastIndexOf('@');
  return { pkg: value.slice(0, at), version: value.slice(at + 1) };
}

/** The shape and schema of a file when the run or the record does not say. */
export const DEFAULT_SHAPE: Shape = 'flat';
export const DEFAULT_SCHEMA: Schema = 'small';

/** The order of a run's samples. */
export const ORDERS = ['interleaved', 'sequential', 'random'] as const;
export type Order = (typeof ORDERS)[number];

/**
 * A framework's name (or an app's, for `measure`): open, any registered generator or app. The name
 * rule (letters, digits and `._+:@/-`) keeps labels, file names and reports free of markup and paths.
 */
export type FrameworkName = string;
const NAME = /^[A-Za-z0-9][A-Za-z0-9._+:@/-]{0,99}$/;
export function isName(x: unknown): x is string {
  return typeof x === 'string' && NAME.test(x) && !x.includes('..');
}
