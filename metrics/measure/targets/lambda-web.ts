/**
 * The lambda-web target: a server as Lambda Web Functions run it (docs.aws.amazon.com/lambda/latest/dg/
 * web-functions*, read 2026-12-05). The child gets AWS_LAMBDA_HTTP_ENDPOINT (127.0.0.1 and a free port), no
 * PORT, and the names Lambda sets in a function's environment; it is ready, as Lambda sees it, when that
 * address accepts a connection, probed from outside (POLL_MS): not when the server says so (its own
 * listen mark is kept beside it, `ownListen`). A server that listens elsewhere fails at once with that
 * reason; one that does not accept within the platform's limit (10 s) fails with the limit's. The rest of
 * the sample (the first answer, CPU after it, first hits) is the server's (server.ts).
 */
import { connect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { performance } from 'node:perf_hooks';
import path from 'node:path';
import { HTTP_ENDPOINT_ENV } from '../../../generators/probe.ts';
import { targetKind } from '../../core/kinds.ts';
import { isCounted } from '../../core/dimensions.ts';
import { functionName } from '../../core/function-name.ts';
import { webLimitReason } from '../../core/web-platform.ts';
import { freePort } from '../app-answer.ts';
import { lambdaEnvironment } from '../runtime-api/environment.ts';
import { oneLine } from '../text.ts';
import { measureServer, parseReadyLine, type Readiness, type Ready } from './server.ts';
import { SampleFailure, type SampleIO, type Target } from './target.ts';

/**
 * How often the address is tried, ms: every SLOW_POLL_MS while the server starts, every POLL_MS once it has
 * said it listens (its ready line). A server accepts at its listen() and says so a tick later, so the ready time
 * is within about POLL_MS of when it accepted, and one that says so before it accepts is timed to 1 ms; the
 * tries cost the runner about 2.5 % of a core while a server starts (13-15 % at 1 ms throughout: measured on
 * this project's machine, 2026-12-05).
 */
export const POLL_MS = 1;
export const SLOW_POLL_MS = 10;
/** A connection attempt that neither connects nor is refused within this is abandoned and tried again, ms. */
const ATTEMPT_MS = 250;

export interface Endpoint {
  host: string;
  port: number;
}

/** One connection attempt: the runner's clock when it was accepted, or undefined when refused (or silent). */
function tryConnect({ host, port }: Endpoint): Promise<number | undefined> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    socket.setTimeout(ATTEMPT_MS);
    socket.once('connect', () => {
      const at = performance.now();
      socket.destroy();
      resolve(at);
    });
    socket.once('timeout', () => {
      socket.destroy();
      resolve(undefined);
    });
    socket.once('error', () => {
      socket.destroy();
      resolve(undefined);
    });
  });
}

/**
 * The runner's clock at the first accepted connection to `endpoint`, tried every `slowMs` until `hurry` settles,
 * then every `fastMs`, until `signal` aborts.
 */
export async function waitAccepting(
  endpoint: Endpoint,
  signal: AbortSignal,
  pace: { hurry?: Promise<unknown>; slowMs?: number; fastMs?: number } = {},
): Promise<number> {
  let hurried = pace.hurry === undefined;
  const hurry = (pace.hurry ?? Promise.resolve()).then(
    () => (hurried = true),
    () => (hurried = true),
  );
  for (;;) {
    signal.throwIfAborted();
    const at = await tryConnect(endpoint);
    if (at !== undefined) return at;
    if (hurried) await sleep(pace.fastMs ?? POLL_MS, undefined, { signal });
    else await Promise.race([sleep(pace.slowMs ?? SLOW_POLL_MS, undefined, { signal }), hurry]);
  }
}

const address = (e: Endpoint) => `${e.host}:${e.port}`;

/** The failure of a server that did not accept on the endpoint within the platform's limit. */
export function limitReason(endpoint: Endpoint, limitMs: number): string {
  return webLimitReason(address(endpoint), limitMs);
}

/** The failure of a server that listened on another port than the endpoint's. */
export function wrongPortReason(ready: Pick<Ready, 'port' | 'address'>, endpoint: Endpoint): string {
  const where = ready.address === undefined ? `port ${ready.port}` : `${oneLine(ready.address, 60)} port ${ready.port}`;
  return (
    `the server listened on ${where}, not on ${HTTP_ENDPOINT_ENV} (${address(endpoint)}): ` +
    'a Web Function must listen on the host and port that variable gives, or Lambda never sees it ready'
  );
}

/**
 * Ready as Lambda sees it: the endpoint accepting a connection, within `limitMs` of the spawn. The
 * server's ready line is read too (its marks, and where it listened): a line that names another port
 * fails the sample at once rather than at the limit.
 */
export function endpointReadiness(endpoint: Endpoint, limitMs: number): Readiness {
  return async (io: SampleIO) => {
    const abort = new AbortController();
    const line = io.protocolLine(io.app ? 'listening server' : 'ready line');
    // tried slowly while it starts, every millisecond once it says it listens
    const accepted = waitAccepting(endpoint, abort.signal, { hurry: line });
    // the one not awaited to its end is abandoned: its rejection is not an unhandled one
    accepted.catch(() => undefined);
    line.catch(() => undefined);
    let timer: NodeJS.Timeout | undefined;
    const limit = new Promise<never>((_, reject) => {
      if (!Number.isFinite(limitMs)) return;
      const left = Math.max(0, limitMs - (performance.now() - io.spawnAt));
      timer = setTimeout(() => reject(new SampleFailure(limitReason(endpoint, limitMs))), left);
    });
    limit.catch(() => undefined);
    const checked = (text: string): Ready => {
      const ready = parseReadyLine(text);
      if (ready.port !== endpoint.port) throw new SampleFailure(wrongPortReason(ready, endpoint));
      return ready;
    };
    try {
      const first = await Promise.race([line.then((text) => ({ text })), accepted.then((at) => ({ at })), limit]);
      let ready: Ready;
      let acceptedAt: number;
      if ('text' in first) {
        ready = checked(first.text);
        acceptedAt = await io.whileAlive(Promise.race([accepted, limit]), `a connection accepted on ${HTTP_ENDPOINT_ENV}`);
      } else {
        acceptedAt = first.at;
        ready = checked(await Promise.race([line, limit]));
      }
      if (acceptedAt - io.spawnAt > limitMs) throw new SampleFailure(limitReason(endpoint, limitMs));
      return { ready, acceptedAt };
    } finally {
      clearTimeout(timer);
      abort.abort();
    }
  };
}

/**
 * The environment Lambda gives a Web Function's process: AWS_LAMBDA_HTTP_ENDPOINT, and the names every
 * function's environment has (those of the event functions, without the Runtime API and the handler). No PORT.
 */
export function webEnvironment(
  endpoint: Endpoint,
  options: { functionName: string; memoryMb: number; taskRoot: string; runtimeLine?: string },
): Record<string, string> {
  const {
    AWS_LAMBDA_RUNTIME_API: _api,
    _HANDLER: _handler,
    ...common
  } = lambdaEnvironment('', {
    functionName: options.functionName,
    memoryMb: options.memoryMb,
    handler: '',
    taskRoot: options.taskRoot,
    ...(options.runtimeLine ? { executionEnv: `AWS_Lambda_${options.runtimeLine}` } : {}),
  });
  return { ...common, [HTTP_ENDPOINT_ENV]: address(endpoint) };
}

export const lambdaWebTarget: Target = {
  name: 'lambda-web',
  async open({ cell, file, app }) {
    const kind = targetKind(cell.target);
    const { caps } = kind;
    if (!caps) throw new Error(`target ${cell.target} has no caps: it is not a Web Function`);
    const endpoint: Endpoint = { host: '127.0.0.1', port: await freePort() };
    const name = functionName({ framework: cell.framework, variant: cell.variant, routes: cell.routes });
    const env: Record<string, string> = {
      ...app?.env,
      ...webEnvironment(endpoint, {
        functionName: name,
        memoryMb: caps.memoryMB,
        taskRoot: app?.cwd ?? path.dirname(file),
        ...(kind.runtimeLine ? { runtimeLine: kind.runtimeLine } : {}),
      }),
    };
    delete env.PORT;
    // counted under valgrind the child runs tens of times slower: the platform's wall-time limit does not apply
    const limitMs = isCounted(cell) ? Number.POSITIVE_INFINITY : (kind.readyLimitMs ?? Number.POSITIVE_INFINITY);
    return {
      env,
      measure: (io) => measureServer(io, endpoint.port, endpointReadiness(endpoint, limitMs)),
      close: () => Promise.resolve(),
    };
  },
};
