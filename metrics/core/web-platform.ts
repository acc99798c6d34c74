/**
 * Lambda's compute kinds that are not the event function, as AWS's pages describe them (each fact with
 * its page; read 2026-12-05), and the rates a Web Function's cold start is priced at.
 *
 * - Web Functions (docs.aws.amazon.com/lambda/latest/dg/web-functions-env-lifecycle): INIT loads the
 *   package, prepares the runtime and starts the server, which must listen on AWS_LAMBDA_HTTP_ENDPOINT
 *   within 10 s; arm64 only, 2 vCPUs an environment (web-functions-configuration-architecture). They are
 *   billed on requests, active CPU time and memory over the environment's life; the rates are not in the
 *   public documentation coldstart can read, so a $ figure needs the user's rates: never one of ours.
 * - Managed Instances (lambda-managed-instances-scaling): they do not scale when invocations arrive and
 *   have no cold starts; they scale in the background on CPU use and concurrency, and may throttle when
 *   traffic more than doubles within 5 minutes. A "$ per cold start" is meaningless for them.
 */
import { UsageError } from './errors.ts';
import { TARGET_KINDS } from './kinds.ts';

const WEB = TARGET_KINDS['lambda-web']!;

/** The 10 s a Web Function's server has to listen (web-functions-env-lifecycle): the lambda-web kind's readyLimitMs. */
export const WEB_FUNCTION_INIT_LIMIT_MS = WEB.readyLimitMs!;
/** A Web Function's architecture: arm64 only (web-functions-configuration-architecture). */
export const WEB_FUNCTION_ARCHITECTURE = 'arm64';
/** A Web Function environment's memory: 2 GB (the reading of the Web Functions pages), the kind's caps. */
export const WEB_FUNCTION_MEMORY_GB = WEB.caps!.memoryMB / 1024;

/** The words of a sample that failed on the limit (measure/targets/lambda-web.ts), which the reports count by. */
const LIMIT_WORDS = "Lambda Web Functions' limit on INIT";

/** Why a sample failed on the limit: its endpoint (`host:port`) did not accept within `limitMs`. */
export function webLimitReason(address: string, limitMs: number): string {
  return (
    `not accepting connections on AWS_LAMBDA_HTTP_ENDPOINT (${address}) within ${limitMs / 1000} s, ` +
    `${LIMIT_WORDS}: on Lambda this cold start would fail`
  );
}

/** Whether a sample's failure reason is the limit's (webLimitReason). */
export const isWebLimitReason = (reason: string): boolean => reason.includes(LIMIT_WORDS);

/** How the cold starts of a compute kind may be priced. */
export const LAMBDA_COMPUTES = {
  'on-demand': { perColdStart: true, why: '' },
  'managed-instances': {
    perColdStart: false,
    why:
      'Lambda Managed Instances have no per-request cold start: they scale in the background on CPU use and ' +
      'throttle when traffic more than doubles within 5 minutes (AWS, lambda-managed-instances-scaling); ' +
      "read the INIT time (the report's ready figure) as the scale-out budget instead",
  },
} as const;
export type LambdaCompute = keyof typeof LAMBDA_COMPUTES;

export function parseLambdaCompute(text: string): LambdaCompute {
  if (!Object.hasOwn(LAMBDA_COMPUTES, text))
    throw new UsageError(`--lambda-compute: "${text}" is not one of ${Object.keys(LAMBDA_COMPUTES).join(', ')}`);
  return text as LambdaCompute;
}

/** Refuse a per-cold-start price for a compute kind that has no per-request cold start. */
export function checkColdStartPricing(compute: LambdaCompute, priced: boolean): void {
  const kind = LAMBDA_COMPUTES[compute];
  if (priced && !kind.perColdStart) throw new UsageError(`--lambda-compute ${compute} has no $ per cold start: ${kind.why}`);
}

/** The user's rates for a Web Function (USD): none is ever filled in by coldstart. */
export interface WebRates {
  /** $ per second of active CPU (the environment's vCPUs' busy time) */
  activeCpuSecond: number;
  /** $ per GB-second of memory over the environment's life */
  gbSecond: number;
  /** $ per request */
  request: number;
}

export const WEB_RATE_FIELDS = ['activeCpuSecond', 'gbSecond', 'request'] as const;

/** A rate: a finite, non-negative $ figure under $1 (every Lambda rate is a fraction of a cent). */
export function parseRate(name: string, value: unknown): number {
  const n = typeof value === 'string' && /^\s*\d*\.?\d+(e-?\d+)?\s*$/i.test(value) ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isFinite(n) || n < 0 || n >= 1)
    throw new UsageError(`${name}: ${JSON.stringify(value)} is not a rate in $ (a figure from 0 to under 1, e.g. 0.0000166667)`);
  return n;
}

/** A price file's JSON: {"activeCpuSecond": …, "gbSecond": …, "request": …}, every field given, no other. */
export function parseWebRates(json: string, file: string): WebRates {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    throw new UsageError(`--price-file ${file} is not JSON`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new UsageError(`--price-file ${file}: expected {"activeCpuSecond": …, "gbSecond": …, "request": …}`);
  const record = value as Record<string, unknown>;
  const extra = Object.keys(record).filter((k) => !(WEB_RATE_FIELDS as readonly string[]).includes(k));
  if (extra.length > 0)
    throw new UsageError(`--price-file ${file}: unknown field ${JSON.stringify(extra[0])} (${WEB_RATE_FIELDS.join(', ')})`);
  const rates = {} as WebRates;
  for (const field of WEB_RATE_FIELDS) {
    if (!(field in record)) throw new UsageError(`--price-file ${file}: ${field} is missing (coldstart has no rate of its own)`);
    rates[field] = parseRate(`--price-file ${file}: ${field}`, record[field]);
  }
  return rates;
}

/** Why lambda:run deploys no Web Function (one line). */
export const LAMBDA_RUN_NO_WEB =
  'lambda:run does not deploy Lambda Web Functions: it drives the Lambda API of event functions (create, configure, invoke), ' +
  'and Web Functions are revisions behind HTTPS endpoints it does not drive yet; package them with ' +
  'lambda:package --target lambda-web, deploy with SAM (README.txt) and read their cold starts with lambda:import';
