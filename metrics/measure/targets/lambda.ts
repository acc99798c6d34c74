/**
 * The Lambda target: the generated file is a handler behind the framework's own adapter, run as
 * `node <file>` with AWS_LAMBDA_RUNTIME_API pointing at a Runtime API the runner serves on 127.0.0.1
 * for this one sample (or, with the `ric` bootstrap, AWS's Runtime Interface Client that loads it, as
 * Lambda's managed runtime does). INIT ends at the child's first `GET next` (as on Lambda); the
 * runner then hands out the API Gateway event for the LAST route, in the payload format the
 * framework's adapter is deployed with, and times its response, and a
 * validating handler must answer the invalid body with a 4xx statusCode. The figures are the ones
 * Lambda's REPORT line gives: Init Duration, Duration, Billed Duration, Max Memory Used.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { RouteRequest } from '../../../generators/contract.ts';
import { requestEvent, readLambdaResult } from '../../../generators/lambda-event.ts';
import { INIT_SPLIT_ENV, readLambdaLine, type LambdaReadyLine } from '../../../generators/lambda-probe.ts';
import { PROTOCOL_PREFIX } from '../../../generators/probe.ts';
import { functionName } from '../../core/function-name.ts';
import { HANDLER_EXPORT_ENV, HANDLER_FILE_ENV } from '../../../generators/app-probe.ts';
import type { AppSpec } from '../../core/app.ts';
import { asksInitSplit, isRicBootstrap } from '../../plan/lambda-bootstrap.ts';
import type { CpuMarks, InvalidBodyCheck, LambdaFigures } from '../../core/samples.ts';
import { processCpuMs } from '../proc-cpu.ts';
import { answerProblem, lambdaAnswer, sameAnswerProblem } from '../app-answer.ts';
import { lambdaEnvironment } from '../runtime-api/environment.ts';
import { startRuntimeApi, type RuntimeApi } from '../runtime-api/server.ts';
import type { InvocationOutcome } from '../runtime-api/state.ts';
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
import { isLambdaRuntimeLine, lambdaMemorySize } from '../../core/lambda-platform.ts';

/**
 * A posted error as one line: `errorType: errorMessage` (the error-type header, then the body's type
 * when it says more, e.g. the probe's `Runtime.InitError: TypeError: …`; the client's
 * `Runtime.HandlerNotFound: index.main is undefined or not exported` once), the message's first line
 * only (the client appends Node's require stack); a body of another shape as its JSON.
 */
export function errorText(errorType: string, error: unknown): string {
  if (error !== null && typeof error === 'object') {
    const { errorType: bodyType, errorMessage } = error as Record<string, unknown>;
    if (typeof errorMessage === 'string') {
      const first = errorMessage.split('\n').find((line) => line.trim()) ?? '';
      const types = [errorType, typeof bodyType === 'string' && bodyType !== errorType ? bodyType : ''].filter(Boolean);
      return oneLine([...types, first].join(': '), 200);
    }
  }
  return oneLine(`${errorType ? `${errorType}: ` : ''}${JSON.stringify(error)}`, 200);
}

/** What an invocation's outcome means for the sample: the handler's answer, or a one-line failure. */
function answerOf(outcome: InvocationOutcome, what: string): { status: number; body: unknown; at: number; handedOutAt: number } {
  switch (outcome.kind) {
    case 'response': {
      const answer = readLambdaResult(outcome.body);
      if (!answer.ok) throw new SampleFailure(`${what}: ${answer.reason}`);
      return { status: answer.status, body: answer.body, at: outcome.at, handedOutAt: outcome.handedOutAt ?? outcome.at };
    }
    case 'invocationError':
      throw new SampleFailure(`${what}: the handler failed (${errorText(outcome.errorType, outcome.error)})`);
    case 'initError':
      throw new SampleFailure(`the module failed during INIT (${errorText(outcome.errorType, outcome.error)})`);
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
    const outcome = await io.whileAlive(
      api.invoke(requestEvent(request, { format: io.contract.eventFormat })).outcome,
      'the invalid-body answer',
    );
    const answer = answerOf(outcome, 'invalid body check');
    if (answer.status >= 400 && answer.status < 500) return { ok: true, status: answer.status };
    return { ok: false, status: answer.status, reason: `an invalid body got ${answer.status}, expected 4xx` };
  } catch (error) {
    return { ok: false, reason: `invalid body check: ${(error as Error).message}` };
  }
}

/** One event through the Runtime API, its answer on the runner's clock (handed out → response). */
async function invokeRoute(api: RuntimeApi, io: SampleIO, request: RouteRequest, what: string): Promise<RouteAnswer> {
  const outcome = await io.whileAlive(api.invoke(requestEvent(request, { format: io.contract.eventFormat })).outcome, what);
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

/** The first invocation of a generated handler: the event for the last route of its table, the expected answer. */
async function contractAnswer(api: RuntimeApi, io: SampleIO, routes: CellRoutes): Promise<{ at: number; handedOutAt: number }> {
  const last = routes.last;
  const answer = await invokeRoute(api, io, routes.request(last), 'its first response');
  routes.check(last, answer);
  return { at: answer.at, handedOutAt: answer.sentAt };
}

/** The first invocation of the user's handler: its event, the expected status and body pattern. */
async function appAnswer(api: RuntimeApi, io: SampleIO, app: AppSpec): Promise<{ at: number; handedOutAt: number }> {
  const outcome = await io.whileAlive(api.invoke(app.event ?? {}).outcome, 'its first response');
  // anything but a response fails the sample with answerOf's reason
  if (outcome.kind !== 'response') return answerOf(outcome, 'the event');
  const answer = lambdaAnswer(outcome.body);
  const problem = answerProblem('the event', app.expect, answer.status, answer.body) ?? sameAnswerProblem(app, answer.status, answer.body);
  if (problem) throw new SampleFailure(problem);
  return { at: outcome.at, handedOutAt: outcome.handedOutAt ?? outcome.at };
}

/** A module that failed while loading posted /runtime/init/error before it exited: that is the reason, when there is one. */
function initFailure(api: RuntimeApi): SampleFailure | undefined {
  const initError = api.records.find((r) => r.kind === 'initError');
  if (initError?.kind !== 'initError') return undefined;
  return new SampleFailure(`the module failed during INIT (${errorText(initError.errorType, initError.error)})`);
}

/**
 * INIT: the probe prints its ready line (its marks) just before its first `next`; under the Runtime
 * Interface Client a generated file's probe prints it at its `startup` mark when asked for INIT's split
 * (its marks are then read for the split only), a user's handler nothing of ours, so such a sample has
 * only what the Runtime API sees. Either way INIT ends at the first `next`, on the runner's clock.
 */
async function awaitInit(
  api: RuntimeApi,
  io: SampleIO,
): Promise<{ ready: LambdaReadyLine | undefined; ricReady: LambdaReadyLine | undefined; initEnd: number }> {
  try {
    const ric = isRicBootstrap(io.cell.bootstrap);
    const line = !ric || asksInitSplit(io.cell, io.app) ? parseReady(await io.protocolLine('ready line')) : undefined;
    const initEnd = await io.whileAlive(api.initEnded, 'its first GET next');
    return ric ? { ready: undefined, ricReady: line, initEnd } : { ready: line, ricReady: undefined, initEnd };
  } catch (error) {
    throw initFailure(api) ?? error;
  }
}

/**
 * INIT's split from a ready line that carries it: loading (inside require), running (start → startup
 * less loading), modules, bytes; and, from a probe that times require in CPU time too, the running
 * part in the process's CPU time (the CPU marks start → startup less the CPU time inside require).
 */
export function initSplit(ready: LambdaReadyLine | undefined): Partial<LambdaFigures> {
  const load = ready?.load;
  if (!ready || !load) return {};
  const own = ready.marks.startup - ready.marks.start;
  // the split's own CPU clock (the main thread's) when the probe sends it; else the CPU marks (the process's)
  const ownCpu = load.ownCpuMs ?? ready.cpu.startup - ready.cpu.start;
  return {
    initLoadingMs: round3(load.ms),
    initRunningMs: round3(Math.max(0, own - load.ms)),
    initModules: load.modules,
    initModuleBytes: load.bytes,
    ...(load.cpuMs !== undefined
      ? { initLoadingCpuMs: round3(load.cpuMs), initRunningCpuMs: round3(Math.max(0, ownCpu - load.cpuMs)) }
      : {}),
  };
}

const round3 = (x: number) => Math.round(x * 1000) / 1000;

async function measure(api: RuntimeApi, io: SampleIO, memorySizeMB: number): Promise<Measured> {
  const { ready, ricReady, initEnd } = await awaitInit(api, io);
  // the invocation's own CPU time, read from outside the child (for the CPU share model)
  const cpuAtInit = processCpuMs(io.pid);
  await io.endOfInit();
  // a generated handler answers its route table; the user's own handler its one event
  const routes = io.app ? undefined : new CellRoutes(io.cell, io.contract);
  const answer = routes ? await contractAnswer(api, io, routes) : await appAnswer(api, io, io.app!);
  const cpuAtAnswer = processCpuMs(io.pid);
  const init = initEnd - io.spawnAt;
  const firstResponse = answer.at - io.spawnAt;
  const durationMs = answer.at - answer.handedOutAt;
  const peak = peakMemoryMB(io.pid);
  const lambda: LambdaFigures = {
    initMs: init,
    durationMs,
    billedMs: billedMs(init, durationMs),
    memorySizeMB,
    ...(peak !== undefined ? { maxMemoryUsedMB: peak } : {}),
    ...(cpuAtInit !== undefined && cpuAtAnswer !== undefined ? { invokeCpuMs: Math.round((cpuAtAnswer - cpuAtInit) * 1000) / 1000 } : {}),
    ...initSplit(ready ?? ricReady),
  };
  let measured: Measured;
  if (ready) {
    const marks = timelineMarks(ready, io.spawnAt, { name: 'init', at: init }, firstResponse);
    const cpu: CpuMarks = { ...ready.cpu };
    const afterText = await io.optionalProtocolLine(AFTER_LINE_WAIT_MS);
    try {
      const after = afterText === undefined ? undefined : readLambdaLine(PROTOCOL_PREFIX + afterText);
      if (after && 'after' in after && after.cpu >= (cpu.startup ?? 0)) cpu.firstResponse = after.cpu;
    } catch {
      // a broken CPU report loses that figure, never the sample
    }
    measured = { marks, cpu, lambda, rss: ready.rss, heapUsed: ready.heapUsed, runtimeVersion: ready.runtime };
  } else {
    measured = { marks: { init, firstResponse }, lambda };
  }
  if (!routes) return measured;
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
  async open({ cell, file, app }): Promise<TargetSample> {
    // the name the packaging step gives the same cell's function on AWS
    const name = functionName({
      framework: cell.framework,
      variant: cell.variant,
      routes: cell.routes,
      ...(cell.init === 'eager' ? { init: cell.init } : {}),
    });
    const memorySizeMB = lambdaMemorySize(cell.memory);
    const api = await startRuntimeApi({ functionName: name });
    // the user's handler (`measure`): its task root and Handler setting (the client loads it by them),
    // and for coldstart's bootstrap (the probe start) its file and export
    const handlerFile = app?.file ?? file;
    const handlerExport = app?.exportName ?? 'handler';
    return {
      env: {
        ...app?.env,
        ...lambdaEnvironment(api.address, {
          functionName: name,
          memoryMb: memorySizeMB,
          handler: app?.handler ?? `${path.basename(handlerFile, path.extname(handlerFile))}.${handlerExport}`,
          taskRoot: app?.taskRoot ?? path.dirname(handlerFile),
          ...(isLambdaRuntimeLine(cell.runtime) ? { executionEnv: `AWS_Lambda_${cell.runtime}` } : {}),
        }),
        ...(app ? { [HANDLER_FILE_ENV]: app.file, [HANDLER_EXPORT_ENV]: handlerExport } : {}),
        ...(asksInitSplit(cell, app) ? { [INIT_SPLIT_ENV]: '1' } : {}),
      },
      measure: (io) => measure(api, io, memorySizeMB),
      close: () => api.close(),
    };
  },
};
