/**
 * The eager form of a user's Lambda handler (`measure --handler FILE.export --init-export NAME`, the
 * `eager` value of the init row): a small ES module that coldstart writes into the run's scratch folder
 * (never into the user's project). It is what the adapters' documentation advises for cold starts
 * (fastify's `await app.ready()` at the top level of an ES module): it loads the user's module, awaits
 * the init export at its top level, so that the work happens in INIT, and exports the handler under its
 * own name. The handler as written still calls the init export on its first event and finds it done:
 * the export must be callable more than once, returning the same promise (`let ready; export const init
 * = () => (ready ??= app.ready())`).
 *
 * It opens as a generated eager file does (createRequire, then the Lambda probe of an ES module), so it
 * runs under both bootstraps as those files do: as the main module (`probe`) it is its own Runtime API
 * client, started once its top-level await is done; loaded by AWS's Runtime Interface Client (`ric`) it
 * only exports the handler. A CommonJS module is loaded with require (its named export may be on
 * `default` too), through the probe's unwrapped require when INIT's split is asked, so that what it
 * requires is loading and its own top level running, as for the lazy cell; an ES module by import(),
 * with a load hook that marks its first statement (esmSplitLoad), as coldstart's split preload does for
 * an ES module handler under the client. The init call is running work. A missing export, one that is
 * not a function, or an init that throws or rejects fails INIT with one line naming it.
 *
 * The bundled form (`--build bundle`) loads the module with a plain require or import, which esbuild
 * follows into the bundle (plan/bundle.ts bundles an .mjs as an ES module, its top-level await kept).
 */
import { pathToFileURL } from 'node:url';
import { EAGER_REQUIRE_LINES, LAMBDA_PROBE_ESM } from './lambda-probe.ts';

/** The file name of the wrapper in its folder (Lambda's Handler is then `index.<export>`). */
export const EAGER_WRAPPER_FILE = 'index.mjs';

export interface EagerWrapperInput {
  /** the user's handler module, absolute */
  file: string;
  /** whether Node loads it as an ES module (plan/lambda-bootstrap.ts isEsModuleFile) */
  esm: boolean;
  /** the handler's export (a dotted path reaches a nested one) */
  exportName: string;
  /** the export that initialises the module */
  initExport: string;
  /** the text to bundle: a plain require or import esbuild follows */
  bundled?: boolean;
}

/** The statement that gives `__csApp` the user's module. */
function loadStatement(input: EagerWrapperInput): string {
  if (input.esm && input.bundled) return ['const __csApp = await import(__csFile);', '__csLoad.esm = true;'].join('\n');
  if (input.esm) return esmSplitLoad(pathToFileURL(input.file).href);
  if (input.bundled) return 'const __csApp = require(__csFile);';
  // the probe's unwrapped require (INIT's split asked): the module's own top level is running, what it requires loading
  return [
    'const __csParent = new __csModule(import.meta.filename);',
    '__csParent.filename = import.meta.filename;',
    'const __csApp = __csLoad.load ? __csLoad.load.call(__csParent, __csFile) : require(__csFile);',
  ].join('\n');
}

/**
 * An ES module's load with INIT's split asked, where Node has module.registerHooks (22.15+): a load hook
 * adds a call before the module's first statement (on its first line: no line moves), as coldstart's
 * split preload does for an ES module handler. Loading is the import → that statement (its static
 * imports resolved, read, compiled and run, counted once: what their requires added is inside it), plus
 * what its body requires; running its body and the init call. Elsewhere, or when the hook never saw the
 * module, no split (as coldstart's bootstrap reports none for an ES module).
 */
function esmSplitLoad(url: string): string {
  return `let __csApp;
if (__csLoad.restore && typeof __csModule.registerHooks === 'function') {
  const url = ${JSON.stringify(url)};
  const at = performance.now();
  const cpuAt = __csSplitCpuMs();
  const before = { ms: __csLoad.ms, cpuMs: __csLoad.cpuMs };
  let body = false;
  globalThis.__coldstartBody = () => {
    body = true;
    __csLoad.ms = before.ms + performance.now() - at;
    __csLoad.cpuMs = before.cpuMs + __csSplitCpuMs() - cpuAt;
  };
  const hooks = __csModule.registerHooks({
    load(u, context, next) {
      const result = next(u, context);
      if (body || result.format !== 'module' || result.source === undefined || result.source === null) return result;
      const text = typeof result.source === 'string' ? result.source : new TextDecoder().decode(result.source);
      __csLoad.modules++;
      __csLoad.bytes += text.length;
      if (u !== url) return result;
      return { ...result, source: text.replace(/^(#!.*\\n?)?/, (hashbang) => hashbang + 'globalThis.__coldstartBody();') };
    },
  });
  try { __csApp = await import(__csFile); } finally { hooks.deregister(); }
  if (!body) __csLoad.esm = true;
} else {
  __csApp = await import(__csFile);
  __csLoad.esm = true;
}`;
}

/**
 * The export statement: the handler under its own name (a dotted `api.get` as `export const api = { get }`;
 * `default` as the default export).
 */
function exportStatement(exportName: string): string {
  const [first, ...rest] = exportName.split('.');
  if (rest.length === 0) return `export { __csHandler as ${first} };`;
  const nested = rest.reduceRight((inner, key) => `{ ${JSON.stringify(key)}: ${inner} }`, '__csHandler');
  return first === 'default' ? `export default ${nested};` : `export const ${first} = ${nested};`;
}

/** The wrapper's text: the same input gives the same bytes. */
export function eagerWrapper(input: EagerWrapperInput): string {
  const name = JSON.stringify(input.exportName);
  const init = JSON.stringify(input.initExport);
  return [
    `// coldstart's eager wrapper of a user's Lambda handler: its ${init} export awaited in INIT. Generated by coldstart: do not edit.`,
    ...EAGER_REQUIRE_LINES,
    ...(input.bundled ? [] : [`import { Module as __csModule } from 'node:module';`]),
    LAMBDA_PROBE_ESM,
    `const __csFile = ${JSON.stringify(input.file)};`,
    loadStatement(input),
    `__csMark('imported');`,
    "// a dotted name reaches a nested export, and the default export is searched too, as Lambda's client does",
    'function __csFind(name) {',
    '  const step = (at, key) => (at !== null && (typeof at === "object" || typeof at === "function") ? at[key] : undefined);',
    '  const keys = name.split(".");',
    '  const holderOf = (from) => keys.slice(0, -1).reduce(step, from);',
    '  let holder = holderOf(__csApp);',
    '  let value = step(holder, keys[keys.length - 1]);',
    '  if (value === undefined && __csApp !== null && typeof __csApp === "object" && "default" in __csApp) {',
    '    holder = holderOf(__csApp.default);',
    '    value = step(holder, keys[keys.length - 1]);',
    '  }',
    '  if (value === undefined) {',
    '    const names = __csApp !== null && typeof __csApp === "object" ? Object.keys(__csApp).slice(0, 8).join(", ") : "";',
    '    throw new Error(\'the handler file exports no "\' + name + \'"\' + (names ? " (it exports: " + names + ")" : ""));',
    '  }',
    '  if (typeof value !== "function") throw new Error(\'the export "\' + name + \'" is a \' + typeof value + ", not a function");',
    '  return { holder, value };',
    '}',
    `const __csInit = __csFind(${init});`,
    'try {',
    '  await __csInit.value.call(__csInit.holder);',
    '} catch (error) {',
    '  const said = error instanceof Error ? error.message : String(error);',
    `  throw new Error('the init export "' + ${init} + '" failed: ' + said.split("\\n")[0]);`,
    '}',
    `const __csHandler = __csFind(${name}).value;`,
    `__csMark('startup');`,
    exportStatement(input.exportName),
    '__csStart(__csHandler);',
    '',
  ].join('\n');
}
