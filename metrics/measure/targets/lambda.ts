/**
 * The Lambda target: the generated file is a handler behind the framework's own adapter, run as
 * `node <file>` with AWS_LAMBDA_RUNTIME_API pointing at a Runtime API the runner serves on 127.0.0.1
 * for this one sample. INIT ends at the child's first `GET next` (as on Lambda); the runner then
 * hands out the API Gateway HTTP API event for the LAST route and times its response, and a
 * validating handler must answer the invalid body with a 4xx statusCode. The figures are the ones
 * Lambda's REPORT line gives: Init Duration, Duration, Billed Duration, Max Memory Used.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { RouteRequest } from '../../../generators/contract.ts';
import { requestEvent, readLambdaResult } from '../../../generators/lambda-event.ts';
import { readLambdaLine, type LambdaReadyLine } from '../../../generators/lambda-probe.ts';
import { PROTOCOL_PREFIX } from '../../../generators/probe.ts';
import { functionName } from '../../cloud/function-name.ts';
import type { CpuMarks, InvalidBodyCheck, LambdaFigures } from '../../core/samples.ts';
import { lambdaEnvironment, startRuntimeApi, type InvocationOutcome, type RuntimeApi } from '../runtime-api.ts';
import { oneLine } from '../text.ts';
import {
  AFTER_LINE_WAIT_MS,
  SampleFailure,
  timelineMarks,
  type Measured,
  type SampleIO,
  type Target,
  type TargetSample,
} from './target.ts';
import { CellRoutes, type RouteAnswer } from './first-hits.ts';

/** The memory size a Lambda child is told (AWS_LAMBDA_FUNCTION_MEMORY_SIZE) when its cell has none. */
export const DEFAULT_LAMBDA_MEMORY_MB = 1024;
/** What an invocation's outcome means for the sample: the handler's answer, or a one-line failure. */
function answerOf(outcome: InvocationOutcome, what: string): { status: number; body: unknown; at: number; handedOutAt: number } {
  switch (outcome.kind) {
    case 'response': {
      const answer = readLambdaResult(outcome.body);
      if (!answer.ok) throw new SampleFailure(`${what}: ${answer.reason}`);
      return { status: answer.status, body: answer.body, at: outcome.at, handedOutAt: outcome.handedOutAt ?? outcome.at };
    }
    case 'invocationError':
      throw new SampleFailure(`${what}: the handler failed (${outcome.errorType}: ${oneLine(JSON.stringify(outcome.error), 160)})`);
    case 'initError':
      throw new SampleFailure(`the module failed during INIT (${outcome.errorType}: ${oneLine(JSON.stringify(outcome.error), 160)})`);
    case 'rejected':
      throw new SampleFailure(`${what}: the child broke the Runtime API protocol (${outcome.reason})`);
    case 'closed':
      throw new SampleFailure(`${what}: no answer before the Runtime API closed`);
  }
}

/** The child's peak resident set (VmHWM) in MB, rounded up as Lambda's Max Memory Used is; undefined off Linux. */
export function peakMemoryMB(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const kb = /^VmHWM:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb === undefined ? undefined : Math.ceil(Number(kb) / 1024);
  } catch {
    return undefined;
  }
}

/** Lambda rounds Init Duration and Duration up to whole ms each and bills both (on-demand, since 1 Aug 2025). */
export function billedMs(initMs: number, durationMs: number): number {
  return Math.ceil(initMs) + Math.ceil(durationMs);
}

async function checkInvalid(api: RuntimeApi, io: SampleIO, routes: CellRoutes): Promise<InvalidBodyCheck | undefined> {
  const request = routes.invalid();
  if (!request) return undefined;
  try {
    const outcome = await io.whileAlive(api.invoke(requestEvent(request)).outcome, 'the invalid-body answer');
    const answer = answerOf(outcome, 'invalid body check');
    if (answer.status >= 400 && answer.status < 500) return { ok: true, status: answer.status };
    return { ok: false, status: answer.status, reason: `an invalid body got ${answer.status}, expected 4xx` };
  } catch (error) {
    return { ok: false, reason: `invalid body check: ${(error as Error).message}` };
  }
}

/** One event through the Runtime API, its answer on the runner's clock (handed out → response). */
async function invokeRoute(api: RuntimeApi, io: SampleIO, request: RouteRequest, what: string): Promise<RouteAnswer> {
  const outcome = await io.whileAlive(api.invoke(requestEvent(request)).outcome, what);
  const answer = answerOf(outcome, `${request.method} ${request.path}`);
  return { status: answer.status, body: answer.body, sentAt: answer.handedOutAt, at: answer.at };
}

function parseReady(text: string): LambdaReadyLine {
  let line;
  try {
    line = readLambdaLine(PROTOCOL_PREFIX + text);
  } catch (error) {
    throw new SampleFailure((error as Error).message);
  }
  if (!line || !('target' in line)) throw new SampleFailure(`expected the Lambda ready line, got: ${oneLine(text, 120)}`);
  return line;
}

async function measure(api: RuntimeApi, io: SampleIO, memorySizeMB: number): Promise<Measured> {
  const { cell, contract } = io;
  // the probe prints its ready line just before its first `next`; INIT ends at that `next`
  let readyText: string;
  try {
    readyText = await io.protocolLine('ready line');
  } catch (error) {
    // a module that failed while loading posted /runtime/init/error before it exited: say that
    const initError = api.records.find((r) => r.kind === 'initError');
    if (initError?.kind === 'initError') {
      throw new SampleFailure(`the module failed during INIT (${initError.errorType}: ${oneLine(JSON.stringify(initError.error), 160)})`);
    }
    throw error;
  }
  const ready = parseReady(readyText);
  const initEnd = await io.whileAlive(api.initEnded, 'its first GET next');
  await io.endOfInit();
  const routes = new CellRoutes(cell, contract);
  const last = routes.last;
  const outcome = await io.whileAlive(api.invoke(requestEvent(routes.request(last))).outcome, 'its first response');
  const request = routes.request(last);
  const answer = answerOf(outcome, `${request.method} ${request.path}`);
  routes.check(last, answer);
  // INIT ends at the first `next`, on the runner's clock
  const init = initEnd - io.spawnAt;
  const marks = timelineMarks(ready, io.spawnAt, { name: 'init', at: init }, answer.at - io.spawnAt);
  const durationMs = answer.at - answer.handedOutAt;
  const cpu: CpuMarks = { ...ready.cpu };
  const afterText = await io.optionalProtocolLine(AFTER_LINE_WAIT_MS);
  try {
    const after = afterText === undefined ? undefined : readLambdaLine(PROTOCOL_PREFIX + afterText);
    if (after && 'after' in after && after.cpu >= (cpu.startup ?? 0)) cpu.firstResponse = after.cpu;
  } catch {
    // a broken CPU report loses that figure, never the sample
  }
  const peak = peakMemoryMB(io.pid);
  const lambda: LambdaFigures = {
    initMs: init,
    durationMs,
    billedMs: billedMs(init, durationMs),
    memorySizeMB,
    ...(peak !== undefined ? { maxMemoryUsedMB: peak } : {}),
  };
  const measured: Measured = { marks, cpu, lambda, rss: ready.rss, heapUsed: ready.heapUsed, runtimeVersion: ready.runtime };
  const hits = await routes.firstHits(io.firstHits, io.spawnAt, (next, what) => invokeRoute(api, io, next, what));
  if (hits) measured.firstHits = hits;
  if (io.checkInvalidBody) {
    const invalid = await checkInvalid(api, io, routes);
    if (invalid) measured.invalidBody = invalid;
  }
  return measured;
}

export const lambdaTarget: Target = {
  name: 'lambda',
  async open({ cell, file }): Promise<TargetSample> {
    // the name the packaging step gives the same cell's function on AWS
    const name = functionName(cell);
    const memorySizeMB = cell.memory || DEFAULT_LAMBDA_MEMORY_MB;
    const api = await startRuntimeApi({ functionName: name });
    return {
      env: lambdaEnvironment(api.address, {
        functionName: name,
        memoryMb: memorySizeMB,
        handler: `${path.basename(file, '.js')}.handler`,
        taskRoot: path.dirname(file),
      }),
      measure: (io) => measure(api, io, memorySizeMB),
      close: () => api.close(),
    };
  },
};
