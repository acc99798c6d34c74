import { VARIANTS, type Variant } from './dimensions.ts';
/**
 * The AWS Lambda function name of a cell, and its inverse. Packaging names each deployed function
 * with functionName(); importing CloudWatch REPORT lines finds the cell again with
 * parseFunctionName(). Both directions live here so they cannot drift apart.
 *
 * The name is `coldstart-<framework>-<routes>-<variant>`, e.g. `coldstart-deepkit-http-1000-plain`, and
 * `-eager` after it for a handler that initialises its framework in INIT (`--init eager`: an ES module,
 * index.mjs in its zip), e.g. `coldstart-fastify-1000-validated-eager`; a lazy one has the name it always had.
 * Framework names may contain dashes; the route count (digits) and the variant (a fixed word) end the
 * name, so parsing from the right is unambiguous. The memory size is not in the name: every REPORT
 * line states it.
 */

export const FUNCTION_PREFIX = 'coldstart';

/** Lambda's own limit on a function name (letters, digits, dashes and underscores, up to 64). */
export const MAX_FUNCTION_NAME = 64;

const FRAMEWORK = /^[a-z][a-z0-9-]*$/;

export interface FunctionCell {
  framework: string;
  variant: Variant;
  routes: number;
  /** only when eager (absent: lazy, every function packaged before the init lever) */
  init?: 'eager';
}

/** What an eager function's name ends with. */
export const EAGER_SUFFIX = 'eager';

export class FunctionNameError extends Error {}

/** The function name of a cell; throws FunctionNameError when the cell cannot be named within Lambda's rules. */
export function functionName(cell: FunctionCell): string {
  if (!FRAMEWORK.test(cell.framework) || cell.framework.endsWith('-') || cell.framework.includes('--')) {
    throw new FunctionNameError(`framework ${JSON.stringify(cell.framework)} cannot be part of a Lambda function name`);
  }
  if (!Number.isInteger(cell.routes) || cell.routes < 1)
    throw new FunctionNameError(`route count ${String(cell.routes)} is not a positive integer`);
  if (!VARIANTS.includes(cell.variant))
    throw new FunctionNameError(`variant ${JSON.stringify(cell.variant)} is not one of ${VARIANTS.join(', ')}`);
  const name = `${FUNCTION_PREFIX}-${cell.framework}-${cell.routes}-${cell.variant}${cell.init === 'eager' ? `-${EAGER_SUFFIX}` : ''}`;
  if (name.length > MAX_FUNCTION_NAME) {
    throw new FunctionNameError(`function name ${name} is longer than Lambda's ${MAX_FUNCTION_NAME} characters`);
  }
  return name;
}

const NAME = new RegExp(`^${FUNCTION_PREFIX}-([a-z][a-z0-9-]*?)-([1-9][0-9]*)-(${VARIANTS.join('|')})(-${EAGER_SUFFIX})?$`);

/** The cell a function name stands for; undefined when the name was not made by functionName(). */
export function parseFunctionName(name: string): FunctionCell | undefined {
  const match = NAME.exec(name);
  if (!match) return undefined;
  const cell: FunctionCell = {
    framework: match[1]!,
    routes: Number(match[2]),
    variant: match[3] as Variant,
    ...(match[4] ? { init: 'eager' as const } : {}),
  };
  // accept exactly the names functionName() produces, so the two stay each other's inverse
  try {
    return functionName(cell) === name ? cell : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The function a CloudWatch log group belongs to: Lambda logs to `/aws/lambda/<name>`, and Logs
 * Insights' `@log` field prefixes the group with the account id (`123456789012:/aws/lambda/<name>`).
 */
export function functionOfLogGroup(logGroup: string): string | undefined {
  const match = /(?:^|:)\/aws\/lambda\/([A-Za-z0-9_-]+)$/.exec(logGroup.trim());
  return match?.[1];
}

const EMBEDDED = new RegExp(
  `${FUNCTION_PREFIX}-[a-z][a-z0-9-]*?-[1-9][0-9]*-(?:${VARIANTS.join('|')})(?:-${EAGER_SUFFIX})?(?![A-Za-z0-9])`,
);

/**
 * A function name inside a file name, e.g. `coldstart-fastify-100-validated.log` or
 * `2025-08-01-coldstart-hono-1000-plain.csv`; undefined when there is none.
 */
export function functionInFileName(fileName: string): string | undefined {
  const match = EMBEDDED.exec(fileName);
  return match && parseFunctionName(match[0]) ? match[0] : undefined;
}

/** The tag every resource of a lambda:run run carries: its value is the run's id. */
export const RUN_TAG = 'coldstart:run';

/** What lambda:run's run ids are: 1 to 16 lowercase letters or digits. */
export const RUN_ID = /^[a-z0-9]{1,16}$/;

/**
 * The name lambda:run deploys a packaged function under: `<packaged name>-<run id>`, and `-<n>` after it (from 1)
 * when a run deploys the package on several runtime lines or architectures.
 */
export function deployedName(packaged: string, runId: string, index?: number): string {
  return `${packaged}-${runId}${index === undefined ? '' : `-${index}`}`;
}

/**
 * The run of a name deployedName() made (its packaged name parses, its run id is one), or undefined; with `runId`,
 * only that run's names. A packaged name itself (a function deployed by hand from lambda:package's template) is
 * none, even where it could be read as one (`coldstart-hono-1-validated-eager`: a run `eager`).
 */
export function runOfDeployedName(name: string, runId?: string): { packaged: string; runId: string } | undefined {
  if (parseFunctionName(name)) return undefined;
  const splits = [/^(.+)-([a-z0-9]{1,16})-[1-9][0-9]*$/.exec(name), /^(.+)-([a-z0-9]{1,16})$/.exec(name)];
  for (const match of splits) {
    if (!match || !parseFunctionName(match[1]!) || (runId !== undefined && match[2] !== runId)) continue;
    return { packaged: match[1]!, runId: match[2]! };
  }
  return undefined;
}

/**
 * Whether a function (or its log group) is one lambda:run provably made: its name is one deployedName() gives, with
 * the tool's prefix, and the run id in the name is its `coldstart:run` tag's. A tag alone is no proof (anyone can set
 * it), nor a name alone (another run's, or one deployed by hand).
 */
export function madeByRun(name: string, tag: string | undefined): boolean {
  return tag !== undefined && name.startsWith(`${FUNCTION_PREFIX}-`) && runOfDeployedName(name, tag) !== undefined;
}
