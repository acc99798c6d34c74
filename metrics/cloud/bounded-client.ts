/**
 * Every AWS call bounded in time and in bytes (issue 46, items 2c and 3). An SDK client's `send` is wrapped so that
 * each call, its retries and the reading of its answer included, has a deadline (an AbortSignal that ends the
 * request: an endpoint that sends its headers and then a byte every few seconds ends there), and a middleware
 * innermost in the client's stack streams each answer's body through a counter that stops reading it past
 * MAX_AWS_ANSWER_BYTES, before the SDK holds it whole. Either ends the call with one line, exit 5.
 *
 * This file imports nothing of the SDK: it takes a client by the two things it uses (`send`, `middlewareStack`).
 */
import { Readable, Transform } from 'node:stream';
import { EXIT_AWS_ACCESS, ExitCodeError, UsageError } from '../core/errors.ts';

/**
 * The most bytes one AWS answer's body may hold: Lambda's largest synchronous Invoke answer is 6 MB, a FilterLogEvents
 * page of LOGS_PAGE_LIMIT events at most 10 × 256 KB, a ListFunctions page of 50 functions well under 1 MB.
 */
export const MAX_AWS_ANSWER_BYTES = 8 * 1024 * 1024;
/** How long an AWS call may take, s, retries and its answer included, unless its command has its own deadline. */
export const AWS_CALL_DEADLINE_S = 60;
/** CreateFunction's deadline, s: it uploads the zip (up to 50 MB). */
export const CREATE_FUNCTION_DEADLINE_S = 300;
/** The environment variable that sets every AWS call's deadline, s (for tests: short deadlines against slow endpoints). */
export const AWS_DEADLINE_ENV = 'COLDSTART_AWS_DEADLINE_S';

/** "Lambda's", "CloudWatch Logs'". */
const possessive = (service: string) => `${service}'${service.endsWith('s') ? '' : 's'}`;

/** What a call that passed its deadline throws: exit 5, with the command and the deadline. */
export class AwsDeadlineError extends ExitCodeError {
  constructor(
    readonly service: string,
    readonly command: string,
    readonly deadlineS: number,
  ) {
    super(`${possessive(service)} answer to ${command} did not end within ${deadlineS} s: stopped reading it`, EXIT_AWS_ACCESS);
  }
}

class AnswerTooLarge extends Error {
  override name = 'AnswerTooLarge';
}

/** The deadline the environment sets for every call (AWS_DEADLINE_ENV), s; undefined when unset; a bad value is exit 2. */
export function deadlineFromEnv(env: NodeJS.ProcessEnv = process.env): number | undefined {
  const text = env[AWS_DEADLINE_ENV];
  if (text === undefined || text === '') return undefined;
  const value = Number(text);
  if (!Number.isFinite(value) || value <= 0 || value > 3600)
    throw new UsageError(
      `${AWS_DEADLINE_ENV} must be a number of seconds above 0 and at most 3600, not ${JSON.stringify(text.slice(0, 40))}`,
    );
  return value;
}

/** A body stream that passes at most `maxBytes` and then fails (the source is destroyed with it). */
function capped(body: Readable, maxBytes: number): Readable {
  let seen = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      seen += chunk.length;
      if (seen > maxBytes) done(new AnswerTooLarge(`passed ${maxBytes} bytes`));
      else done(null, chunk);
    },
  });
  body.on('error', (error) => counter.destroy(error));
  counter.on('close', () => body.destroy());
  return body.pipe(counter);
}

interface BoundableClient {
  send(command: never, options?: { abortSignal?: AbortSignal }): Promise<unknown>;
  middlewareStack: {
    add(middleware: unknown, options: { step: 'deserialize'; priority: 'low'; name: string }): void;
  };
}

export interface Bounds {
  /** the service's name in the one line ("Lambda", "IAM", "CloudWatch Logs") */
  service: string;
  /** a command's deadline, s, by its name without `Command` (else AWS_CALL_DEADLINE_S) */
  deadlinesS?: Record<string, number>;
  maxBytes?: number;
  /** every call's deadline, s, over the others (default: AWS_DEADLINE_ENV's) */
  everyDeadlineS?: number;
}

function isTooLarge(error: unknown): boolean {
  for (let e = error, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof AnswerTooLarge || (e as { name?: unknown }).name === 'AnswerTooLarge') return true;
  }
  return false;
}

/** `client`, its every call bounded in time and its every answer in bytes (the client itself, changed). */
export function bounded<C extends BoundableClient>(client: C, bounds: Bounds): C {
  const maxBytes = bounds.maxBytes ?? MAX_AWS_ANSWER_BYTES;
  const every = bounds.everyDeadlineS ?? deadlineFromEnv();
  client.middlewareStack.add(
    (next: (args: unknown) => Promise<{ response?: { body?: unknown } }>) => async (args: unknown) => {
      const result = await next(args);
      const response = result.response;
      if (response && response.body instanceof Readable) response.body = capped(response.body, maxBytes);
      return result;
    },
    { step: 'deserialize', priority: 'low', name: 'coldstartAnswerCap' },
  );
  const send = client.send.bind(client) as (command: unknown, options?: { abortSignal?: AbortSignal }) => Promise<unknown>;
  const boundedSend = async (command: unknown, options?: { abortSignal?: AbortSignal }) => {
    const name = ((command as { constructor?: { name?: string } }).constructor?.name ?? 'a call').replace(/Command$/, '');
    const deadlineS = every ?? bounds.deadlinesS?.[name] ?? AWS_CALL_DEADLINE_S;
    const deadline = AbortSignal.timeout(deadlineS * 1000);
    const given = options?.abortSignal;
    try {
      return await send(command, { ...options, abortSignal: given ? AbortSignal.any([given, deadline]) : deadline });
    } catch (error) {
      if (deadline.aborted && !given?.aborted) throw new AwsDeadlineError(bounds.service, name, deadlineS);
      if (isTooLarge(error))
        throw new ExitCodeError(
          `${possessive(bounds.service)} answer to ${name} passed ${maxBytes} bytes: stopped reading it`,
          EXIT_AWS_ACCESS,
        );
      throw error;
    }
  };
  (client as { send: unknown }).send = boundedSend;
  return client;
}
