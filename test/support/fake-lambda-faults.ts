/**
 * What the local Lambda API (fake-lambda.ts) holds and can be told to do wrong: its functions, log events,
 * the calls it records, and the faults a test plants.
 */

export const ACCOUNT = '123456789012';

export interface FakeFunction {
  name: string;
  arn: string;
  runtime: string;
  role: string;
  handler: string;
  memory: number;
  architectures: string[];
  env: Record<string, string>;
  tags: Record<string, string>;
  state: 'Pending' | 'Active';
  lastUpdateStatus: 'InProgress' | 'Successful';
  /** configuration changes since the last invocation: the next one is cold */
  changed: boolean;
  codeBytes: number;
}

export interface Faults {
  /** answer the first n calls of an operation with 429 TooManyRequestsException */
  throttle?: Partial<Record<string, number>>;
  /** answer every call of an operation with 403 AccessDeniedException */
  deny?: string[];
  /** functions (by name prefix) that stay Pending */
  pending?: string[];
  /** functions (by name prefix) whose INIT fails (Status error, Runtime.ExitError) */
  initError?: string[];
  /** functions (by name prefix) whose invocation times out (Status timeout) */
  invokeTimeout?: string[];
  /** DeleteFunction answers 409 ResourceConflictException */
  deleteFails?: boolean;
  /** ms each invocation takes to answer */
  invokeDelayMs?: number;
  /** functions (by name prefix) whose log tail lacks the REPORT line: 4 KB of the handler's output, then END */
  tailWithoutReport?: string[];
  /** FilterLogEvents finds a request's events only from its n+1-th call for that request (logs arrive late) */
  logsLate?: number;
  /** functions (by name prefix) whose REPORT line never reaches CloudWatch Logs */
  logsWithoutReport?: string[];
  /** DeleteLogGroup answers 400 OperationAbortedException */
  deleteLogGroupFails?: boolean;
  /** Invoke answers without x-amzn-RequestId (the request id only in the tail's lines) */
  noRequestIdHeader?: boolean;
  /** after a CreateRole, the first n CreateFunction calls answer 400 InvalidParameterValueException (IAM propagating) */
  roleNotAssumable?: number;
  /**
   * this list never ends: ListFunctions answers the first page again with a new NextMarker each time, ListRoles is
   * always truncated with the same Marker
   */
  listForever?: 'ListFunctions' | 'ListRoles';
  /** functions (by name prefix) whose Invoke answer's X-Amz-Log-Result is 1 MB (the documented tail is 4 KB) */
  hugeLogResult?: string[];
  /** FilterLogEvents' answer never ends: its headers, then 1 KB every 10 ms */
  logsEndless?: boolean;
  /** functions (by name prefix) whose Invoke answer never ends: its headers, then 1 KB every 10 ms */
  endlessInvoke?: string[];
  /** operations (as CallRecord.op names them) answered slow-loris: their headers, then one byte every 500 ms, never ended */
  slowLoris?: string[];
  /** operations answered with a flood: their headers, then 64 KB chunks as fast as the client reads them, never ended */
  flood?: string[];
}

export interface FakeLogEvent {
  logStreamName: string;
  timestamp: number;
  ingestionTime: number;
  message: string;
  eventId: string;
}

export interface CallRecord {
  op: string;
  /** the request's headers and body, as text (to search for secrets) */
  text: string;
  /** the request's path (an endpoint setting with a path shows in it) */
  path: string;
}
