/**
 * Import rules among the project's own files, type-only imports included (tsPreCompilationDeps: dependency-cruiser
 * reads the TypeScript before type imports are erased). Run by `npm run cycles`, part of `npm run lint`.
 * - no cycles;
 * - the layers: a folder of metrics/ (and generators/) imports only the folders on its row of LAYERS (and itself);
 *   test/ may import anything;
 * - metrics/core/ is pure: it imports no node:fs, node:child_process, node:os (nor net, http, worker_threads);
 *   run-folder I/O is metrics/store/, the shipped calibration data and its loaders metrics/calibration/;
 * - test/unit/ and test/pipeline/ start no process: they may not import node:child_process.
 * @type {import('dependency-cruiser').IConfiguration}
 */

/** Which layers each layer may import, besides itself. generators/ is a layer at the top level. */
const LAYERS = {
  core: [],
  store: ['core'],
  calibration: ['core', 'store'],
  generators: ['core'],
  analyse: ['core', 'calibration'],
  plan: ['core', 'generators'],
  cloud: ['core', 'store', 'calibration', 'generators'],
  measure: ['core', 'store', 'generators', 'plan'],
  report: ['core', 'store', 'calibration', 'analyse'],
  pipeline: ['core', 'store', 'calibration', 'generators', 'analyse', 'plan', 'cloud', 'measure', 'report'],
  // the checks of output files (store/output-file.ts) and the shipped reference's defaults (calibration/) name flags
  cli: ['core', 'store', 'calibration', 'pipeline'],
  // the project's own tools, above the CLI: help-md.ts writes docs/reference/cli.md from the program and
  // docs/guide/frameworks.md's registry table from the generators
  tools: ['core', 'store', 'cli', 'generators'],
};

/** Layers whose rule reports without failing while the moves that satisfy it are under way (none now: every layer rule is an error). */
const WARN_ONLY = new Set([]);

const folder = (layer) => (layer === 'generators' ? '^generators/' : `^metrics/${layer}/`);

const layerRules = Object.entries(LAYERS).map(([layer, may]) => ({
  name: `layer-${layer}`,
  severity: WARN_ONLY.has(layer) ? 'warn' : 'error',
  comment: `${layer} may import only ${may.length ? may.join(', ') : 'nothing else in the project'} (the layers of the README's code map)`,
  from: { path: folder(layer) },
  to: {
    path: '^(metrics|generators)/',
    pathNot: [layer, ...may].map(folder),
  },
}));

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'one module imports another that imports it back, directly or through others (a type-only import counts)',
      from: {},
      to: { circular: true },
    },
    ...layerRules,
    {
      name: 'layer-unknown',
      severity: 'error',
      comment: 'every file of metrics/ belongs to a layer: a new folder needs its row in LAYERS',
      from: { path: '^metrics/', pathNot: Object.keys(LAYERS).map(folder) },
      to: {},
    },
    {
      name: 'core-is-pure',
      severity: 'error',
      comment:
        'metrics/core is the pure domain: no file system, no process, no machine facts. Reading and writing run folders is metrics/store',
      from: { path: '^metrics/core/' },
      to: { dependencyTypes: ['core'], path: '^(node:)?(fs|fs/promises|child_process|os|net|http|worker_threads)$' },
    },
    {
      name: 'aws-sdk-in-api-modules',
      severity: 'error',
      comment:
        "AWS's SDK is an optional peer dependency (docs/dev/libraries.md): only metrics/cloud/*-api.ts import it, " +
        'and only the use cases the CLI loads through withAwsSdk import those',
      from: { path: '^(metrics|generators)/', pathNot: '^metrics/cloud/[^/]+-api[.]ts$' },
      to: { path: '(^|/)node_modules/@aws-sdk/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'aws-sdk-loaded-lazily',
      severity: 'error',
      comment:
        "the use cases that need AWS's SDK are loaded by the CLI with await import() through withAwsSdk " +
        '(metrics/core/aws-sdk.ts), so no other command loads the SDK',
      from: { path: '^metrics/(cli|tools)/' },
      to: {
        path: '^metrics/(pipeline/lambda-(run|run-cleanup|clean)|cloud/[^/]+-api)[.]ts$',
        dynamic: false,
        dependencyTypesNot: ['type-only'],
      },
    },
    {
      name: 'aws-sdk-api-importers',
      severity: 'error',
      comment:
        "a module that imports AWS's SDK (metrics/cloud/*-api.ts) is imported only by the use cases the CLI loads through " +
        'withAwsSdk (pipeline/lambda-run.ts with its lambda-run-cleanup.ts, lambda-clean.ts) and by another such module: ' +
        'any other importer is one the CLI may load statically (pipeline/lambda-run-plan.ts, which lambda:run --dry-run ' +
        'runs without the SDK)',
      from: { path: '^(metrics|generators)/', pathNot: '^metrics/(pipeline/lambda-(run|run-cleanup|clean)|cloud/[^/]+-api)[.]ts$' },
      to: {
        path: '^metrics/(pipeline/lambda-(run|run-cleanup|clean)|cloud/[^/]+-api)[.]ts$',
        dynamic: false,
        dependencyTypesNot: ['type-only'],
      },
    },
    {
      name: 'unit-spawns-nothing',
      severity: 'error',
      comment: 'test/unit and test/pipeline run in-process: no child process (test/support/no-spawn.ts enforces it at run time too)',
      from: { path: '^test/(unit|pipeline)/' },
      to: { dependencyTypes: ['core'], path: '^(node:)?child_process$' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // node_modules is left out, but for AWS's SDK: the aws-sdk rules above see who imports it
    exclude: { path: '^(generated|results)/|^node_modules/(?!@aws-sdk/)' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
