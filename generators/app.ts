/**
 * What the two targets of one framework share: the lines that load the framework and build the app
 * with its N routes. The server file (generators/server/<name>.ts) exports a function returning
 * these parts; the Lambda file (generators/lambda/<name>.ts) puts the same parts between its own
 * probe and its adapter, so a route is written in one place only.
 */
export interface AppParts {
  /** the framework's require line(s), before the target's own (server layer or Lambda adapter) */
  requires: string;
  /** the validation library's require lines, each starting with a newline ('' when none) */
  validation: string;
  /** the statements that build `app` (or `server`) and register the N routes, literally */
  build: string;
}
