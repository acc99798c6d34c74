/**
 * The user's own app as `measure` runs it: a server entry or a Lambda handler, and how to ask it
 * for its first answer. Plain data: the plan builds it from the options, the targets read it, and
 * meta.json records it.
 */

/** How the first request is sent to a server app and judged. */
export interface AppRequest {
  method: string;
  /** path and query, starting with / */
  path: string;
  /** the body's bytes as text (read from --body FILE), absent for none */
  body?: string;
  contentType?: string;
}

export interface AppExpectation {
  /** the status the answer must have (a Lambda result without statusCode counts as 200) */
  status: number;
  /** a regular expression the answer's body must match (JavaScript syntax) */
  bodyPattern?: string;
}

export interface AppSpec {
  /** its name in cell labels and tables (`framework` of its cells) */
  name: string;
  kind: 'server' | 'lambda';
  /** absolute path of the entry (server) or of the handler's module (lambda) */
  file: string;
  /** lambda: the export that is the handler (a dotted path reaches a nested one, as Lambda's Handler setting does) */
  exportName?: string;
  /**
   * lambda: the folder Lambda's runtime gets as LAMBDA_TASK_ROOT (/var/task there): the folder the
   * handler was named from (--cwd, else where the command ran) when the handler lies inside it, else
   * the handler's own folder; the handler runs in it
   */
  taskRoot?: string;
  /** lambda: Lambda's Handler setting (_HANDLER) for that task root: `src/index.handler` */
  handler?: string;
  /** server: arguments after the entry */
  args: string[];
  /** the folder the app runs in */
  cwd: string;
  /** server: the first request */
  request?: AppRequest;
  /** lambda: the event (any JSON) */
  event?: unknown;
  expect: AppExpectation;
  /** variables the app needs (--env NAME=VALUE), on top of the clean environment; meta.json keeps their names only */
  env?: Record<string, string>;
  /** server: `auto` gives the app a free port in PORT and requires it to listen there; 0 sets PORT=0 and takes any port */
  port: 'auto' | 0;
}
