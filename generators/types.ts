/**
 * The one interface every framework generator implements. A generator is a pure function of
 * (routes, variant, shape, schema): the same inputs give the same bytes.
 */
import type { InitMode, Schema, Shape, Target, Variant } from '../metrics/core/dimensions.ts';

export interface GenerateInput {
  /** number of routes, an integer from MIN_ROUTES to MAX_ROUTES */
  routes: number;
  variant: Variant;
  /** the route shape (routes.ts); default `flat`, the files as they always were */
  shape?: Shape;
  /** the schema weight of the bodies (`small`: one field; `user`: the ~1 KB User model); default `small` */
  schema?: Schema;
  /** Lambda only: when the handler initialises its framework (default lazy, the files as they were); eager where `eagerInit` says how */
  init?: InitMode;
}

/**
 * What the runner sends to route i and what it expects back. The default (contract.ts) is
 * `POST /route-<i>` with `{"name": …}`; an RPC-style framework overrides the bodies.
 */
/**
 * The payload formats of API Gateway's Lambda proxy integration a Lambda adapter can be deployed with
 * (lambda-event.ts builds them): 2.0, the HTTP API's own, or 1.0, the REST API's shape.
 */
export const EVENT_FORMATS = ['2.0', '1.0'] as const;
export type EventFormat = (typeof EVENT_FORMATS)[number];
export const DEFAULT_EVENT_FORMAT: EventFormat = '2.0';

export interface Contract {
  /** Lambda files: the payload format of the events the runner sends (the generator's eventFormat, default 2.0) */
  eventFormat: EventFormat;
  /** the JSON body of a valid request to route i carrying `name` */
  validBody(i: number, name: string): unknown;
  /** a JSON body that a validating framework must reject with 4xx (the name is missing) */
  invalidBody(i: number): unknown;
  /**
   * The body carrying `payload` (the user schema's User, valid or not) as route i's one parameter, for
   * a framework whose requests wrap their parameters (mion's RPC: `{"route-<i>": [payload]}`);
   * absent: the payload is the body
   */
  envelope?(i: number, payload: unknown): unknown;
  /**
   * Whether an answer to the valid body is correct, when not the default (status 200 and
   * `{"hello": name, "route": i}` somewhere in the body): the hello-world reference answers a bare 200
   */
  accepts?(status: number, body: unknown, i: number, name: string): boolean;
}

export interface FrameworkGenerator {
  /** the name in file names, tables and `--frameworks`: lowercase letters, digits and dashes */
  name: string;
  /** the folder it lives in, and so where its files are written and how they are run */
  target: Target;
  /**
   * npm packages the generated file loads at runtime. The first one's installed version is the
   * framework version shown in reports; all must resolve or the framework is skipped.
   */
  packages: string[];
  /** what `validated` means for this framework, in a few words (README and reports) */
  validation: string;
  /**
   * Set when the framework cannot run without validation, so `plain` is the same code as
   * `validated` (mion validates from the types, always). Reports say so instead of pretending.
   */
  alwaysValidates?: boolean;
  /** Set when the file validates nothing in either variant (the hello-world reference): no invalid-body check. */
  neverValidates?: boolean;
  /** how to install the packages when they are missing (default: `npm install <packages>`) */
  installHint?: string;
  /**
   * Lambda only: the npm package (or package subpath) that turns the app into `handler(event)`, or
   * `none` when the file is its own handler (the node-http floor). Shown in the README's table.
   */
  adapter?: string;
  /**
   * Set when the framework cannot be deployed on this target with a maintained adapter from the
   * registry: no file is generated and its cells are `unsupported` with this one-line reason.
   */
  unsupported?: string;
  /**
   * Lambda only: the payload format its adapter is deployed with (default 2.0); 1.0 for a binding
   * that reads only the REST API's shape. The runner's events and lambda:package's API follow it.
   */
  eventFormat?: EventFormat;
  /**
   * Route shapes and schema weights this framework cannot be written in, each with its one-line
   * reason: those cells are `unsupported` (no file is generated).
   */
  unsupportedShapes?: Partial<Record<Shape | Schema, string>>;
  /**
   * Lambda only: the framework's eager form, the initialisation its adapter's documentation puts in INIT
   * (`call`, e.g. `await app.ready()`, at the top level of an ES module) and where that is documented.
   * Absent: its `eager` cells are unsupported with `noEagerInit` (or a generic reason).
   */
  eagerInit?: { call: string; documented: string };
  /** Lambda only: why the framework has no eager form (nothing its adapter documents to initialise in INIT) */
  noEagerInit?: string;
  /**
   * A Node line this framework's package cannot load on: from Node `fromNodeMajor` on, for the package's
   * majors up to `throughMajor` (the installed one, or the `--versions` one of the cell), its cells are
   * unsupported with `reason`, decided when the cells are planned (not by samples that fail in INIT).
   */
  nodeLimit?: NodeLimit;
  /** request shape, when not the default `{"name": …}` */
  contract?: Partial<Omit<Contract, 'eventFormat'>>;
  /** the source of the generated file: self-contained CommonJS that embeds PROBE (probe.ts) */
  generate(input: GenerateInput): string | Promise<string>;
}

/** A framework's package × Node line that cannot load (FrameworkGenerator.nodeLimit). */
export interface NodeLimit {
  package: string;
  /** the package's majors up to this one are affected (a later major may have dropped the cause) */
  throughMajor: number;
  /** the first Node major it fails on */
  fromNodeMajor: number;
  reason: string;
}
