/**
 * Lambda's Node.js runtime lines (the `Runtime` of a function): which lines a Lambda cell can run
 * on and `lambda:package` can deploy, the Node binary each runs here (the pinned downloads of
 * runtimes.ts), and the lines Lambda has deprecated, refused with their date. One table for both
 * commands, so what is measured is what gets deployed.
 */
import { UsageError } from '../core/errors.ts';

/** The lines Lambda offers (AWS's "Lambda runtimes" page), oldest first; each runs on the pinned download of its Node line. */
export const LAMBDA_RUNTIME_LINES = {
  'nodejs22.x': { node: 'node22' },
  'nodejs24.x': { node: 'node24' },
} as const satisfies Record<string, { node: 'node22' | 'node24' }>;
export type LambdaRuntimeLine = keyof typeof LAMBDA_RUNTIME_LINES;
export const LAMBDA_RUNTIME_NAMES = Object.keys(LAMBDA_RUNTIME_LINES) as LambdaRuntimeLine[];

/** The default: the newest line. */
export const DEFAULT_LAMBDA_RUNTIME: LambdaRuntimeLine = 'nodejs24.x';

/** Lines Lambda has deprecated (no more security patches; creating functions on them is blocked later), with the date. */
export const DEPRECATED_LAMBDA_RUNTIMES: Readonly<Record<string, string>> = {
  'nodejs20.x': '2026-04-30',
  'nodejs18.x': '2025-09-01',
  'nodejs16.x': '2024-06-12',
  'nodejs14.x': '2023-12-04',
};

export function isLambdaRuntimeLine(name: string): name is LambdaRuntimeLine {
  return Object.hasOwn(LAMBDA_RUNTIME_LINES, name);
}

/** The Node line (`node24`) a Lambda runtime line runs on here. */
export function nodeOfLine(line: LambdaRuntimeLine): 'node22' | 'node24' {
  return LAMBDA_RUNTIME_LINES[line].node;
}

/** The major version of a line: `nodejs24.x` → 24. */
export function lineMajor(line: LambdaRuntimeLine): number {
  return Number(/^nodejs(\d+)\.x$/.exec(line)![1]);
}

/**
 * `--lambda-runtime node`: the node running the tool (or --node), as Lambda cells ran before the
 * lines existed; not a Lambda line (the Runtime Interface Client does not start on it).
 */
export const LOCAL_NODE = 'node';

/** Check one `--lambda-runtime` value: a current line (or `node`), else a one-line UsageError (a deprecated line with its date). */
export function parseLambdaRuntime(option: string, value: string, allowLocal = true): LambdaRuntimeLine | typeof LOCAL_NODE {
  const name = value.trim();
  if (isLambdaRuntimeLine(name)) return name;
  if (allowLocal && name === LOCAL_NODE) return name;
  const deprecated = Object.hasOwn(DEPRECATED_LAMBDA_RUNTIMES, name) ? DEPRECATED_LAMBDA_RUNTIMES[name] : undefined;
  if (deprecated) {
    throw new UsageError(`${option}: ${name} is deprecated on Lambda since ${deprecated}; use ${LAMBDA_RUNTIME_NAMES.join(' or ')}`);
  }
  throw new UsageError(`${option}: "${name}" is not a Lambda Node.js runtime (${LAMBDA_RUNTIME_NAMES.join(', ')})`);
}
