/**
 * Facts of the AWS Lambda platform, one copy each: CPU per memory, the memory sizes, the default
 * memory size, the Node.js runtime lines and their deprecations, the architectures and their prices.
 * Every command (run's limits, the cost model, packaging, importing, the reports) reads them here.
 */
import { WEB_FUNCTION_RUNTIME as WEB_RUNTIME } from './kinds.ts';
import { UsageError } from './errors.ts';

/** The memory size at which a function has one full vCPU (AWS's documentation): it gets memory / 1769 vCPUs. */
export const MB_PER_VCPU = 1769;

/** The memory sizes Lambda allows, in MB (MiB, as Lambda means it). */
export const MIN_MEMORY_MB = 128;
export const MAX_MEMORY_MB = 10_240;
/** The memory size when none is given: the cost model's, a Lambda child's AWS_LAMBDA_FUNCTION_MEMORY_SIZE, a packaged function's. */
export const DEFAULT_MEMORY_MB = 1024;
/**
 * The memory size a Lambda cell's environment reports (AWS_LAMBDA_FUNCTION_MEMORY_SIZE, the runtime's
 * bootstrap): its own, or Lambda's default for a cell that runs without limits (memory 0). The one place
 * a cell's memory 0 is read as a size.
 */
export function lambdaMemorySize(memory: number): number {
  return memory > 0 ? memory : DEFAULT_MEMORY_MB;
}
/** Lambda counts a GB as 1024 MB when it bills GB-seconds. */
export const MB_PER_GB = 1024;

/** The longest a function may run, ms (15 minutes): no Duration can exceed it. */
export const MAX_DURATION_MS = 900_000;

/** Lambda's limit on a synchronous response and on an event, bytes (6 MB). */
export const MAX_PAYLOAD_BYTES = 6 * 1024 * 1024;

/** The longest an on-demand function's Init phase may take, ms (10 s): no Init Duration can exceed it. */
export const MAX_INIT_MS = 10_000;

/** The region a local Lambda child says it runs in (AWS_REGION, its ARN), and the region of the prices below. */
export const DEFAULT_REGION = 'us-east-1';

/** The instruction sets a function can run on, in Lambda's own names. */
export const ARCHITECTURES = ['x86_64', 'arm64'] as const;
export type Architecture = (typeof ARCHITECTURES)[number];
export const DEFAULT_ARCHITECTURE: Architecture = 'x86_64';

/**
 * Other spellings accepted on input: `x86` is what `--arch` took and what meta.json's `arch` held before
 * the one vocabulary, so old run folders and scripts keep working.
 */
const ARCHITECTURE_ALIASES: Readonly<Record<string, Architecture>> = { x86: 'x86_64' };

/** How --help names the architectures a flag takes: Lambda's names, and the alias. */
export const ARCHITECTURE_CHOICES = `${ARCHITECTURES.join(' or ')} (x86 = x86_64)`;

/**
 * One architecture flag's value (`--arch`, and `--architecture`, its old spelling, on every command): a Lambda
 * name or the alias `x86`, else a one-line UsageError naming the flag as the user typed it.
 */
export function parseArchitecture(option: string, value: string): Architecture {
  const architecture = toArchitecture(value.trim());
  if (architecture) return architecture;
  throw new UsageError(`${option}: "${value}" is not one of ${ARCHITECTURES.join(', ')} (or x86, the old name of x86_64)`);
}

/** The short name reports print for an architecture (as they always did: `x86`, `arm64`). */
export const ARCHITECTURE_SHORT_NAME = { x86_64: 'x86', arm64: 'arm64' } as const satisfies Record<Architecture, string>;

export function isArchitecture(value: string): value is Architecture {
  return (ARCHITECTURES as readonly string[]).includes(value);
}

/** An architecture from input (a flag, meta.json): a Lambda name or an alias (`x86`); undefined when it is neither. */
export function toArchitecture(value: string): Architecture | undefined {
  if (isArchitecture(value)) return value;
  return Object.hasOwn(ARCHITECTURE_ALIASES, value) ? ARCHITECTURE_ALIASES[value] : undefined;
}

/** AWS Lambda's on-demand duration price, $ per GB-second (first pricing tier, us-east-1). */
export const PRICE_PER_GB_SECOND: Readonly<Record<Architecture, number>> = { x86_64: 0.0000166667, arm64: 0.0000133334 };
/** AWS Lambda's request price: $0.20 per million requests. */
export const REQUEST_PRICE_PER_MILLION = 0.2;

/**
 * Lambda's Node.js runtime lines (the `Runtime` of a function) it offers (AWS's "Lambda runtimes" page),
 * oldest first: which lines a Lambda cell can run on and `lambda:package` can deploy, each on the pinned
 * download of its Node line (plan/runtimes.ts). One table for both, so what is measured is what gets deployed.
 */
export const LAMBDA_RUNTIME_LINES = {
  'nodejs22.x': { node: 'node22' },
  'nodejs24.x': { node: 'node24' },
} as const satisfies Record<string, { node: 'node22' | 'node24' }>;
export type LambdaRuntimeLine = keyof typeof LAMBDA_RUNTIME_LINES;
export const LAMBDA_RUNTIME_NAMES = Object.keys(LAMBDA_RUNTIME_LINES) as LambdaRuntimeLine[];

/** The default: the newest line. */
export const DEFAULT_LAMBDA_RUNTIME: LambdaRuntimeLine = 'nodejs24.x';
/** The one runtime line of Lambda Web Functions (core/kinds.ts, its target's `runtimeLine`). */
export const WEB_FUNCTION_RUNTIME = WEB_RUNTIME as LambdaRuntimeLine;

/** Lines Lambda has deprecated (no more security patches; creating functions on them is blocked later), with the date. */
export const DEPRECATED_LAMBDA_RUNTIMES = {
  'nodejs20.x': '2026-04-30',
  'nodejs18.x': '2025-09-01',
  'nodejs16.x': '2024-06-12',
  'nodejs14.x': '2023-12-04',
} as const satisfies Record<string, string>;
export type DeprecatedLambdaRuntimeLine = keyof typeof DEPRECATED_LAMBDA_RUNTIMES;

/** Every line this tool knows, current or deprecated: what a cell recorded by an older run may hold. */
export const KNOWN_LAMBDA_RUNTIME_LINES = [
  ...LAMBDA_RUNTIME_NAMES,
  ...(Object.keys(DEPRECATED_LAMBDA_RUNTIMES) as DeprecatedLambdaRuntimeLine[]),
] as const;
export type KnownLambdaRuntimeLine = LambdaRuntimeLine | DeprecatedLambdaRuntimeLine;

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
export function parseLambdaRuntime(option: string, value: string, allowLocal?: true): LambdaRuntimeLine | typeof LOCAL_NODE;
/** Without `node`: a current line only (what a deployed function runs on). */
export function parseLambdaRuntime(option: string, value: string, allowLocal: false): LambdaRuntimeLine;
export function parseLambdaRuntime(option: string, value: string, allowLocal = true): LambdaRuntimeLine | typeof LOCAL_NODE {
  const name = value.trim();
  if (isLambdaRuntimeLine(name)) return name;
  if (allowLocal && name === LOCAL_NODE) return name;
  const deprecated = Object.hasOwn(DEPRECATED_LAMBDA_RUNTIMES, name)
    ? DEPRECATED_LAMBDA_RUNTIMES[name as DeprecatedLambdaRuntimeLine]
    : undefined;
  if (deprecated) {
    throw new UsageError(`${option}: ${name} is deprecated on Lambda since ${deprecated}; use ${LAMBDA_RUNTIME_NAMES.join(' or ')}`);
  }
  throw new UsageError(`${option}: "${name}" is not a Lambda Node.js runtime (${LAMBDA_RUNTIME_NAMES.join(', ')})`);
}

/** The framework name of the hello-world reference's cells (generators/lambda-reference.ts); no Lambda generator may take it. */
export const REFERENCE_FRAMEWORK = 'reference';
