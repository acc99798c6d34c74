/**
 * Import rules among the project's own files, type-only imports included (tsPreCompilationDeps: dependency-cruiser
 * reads the TypeScript before type imports are erased). Run by `npm run cycles`, part of `npm run lint`.
 * - no cycles;
 * - the layers: a folder of metrics/ (and generators/) imports only the folders on its row of LAYERS (and itself);
 *   test/ may import anything;
 * - test/unit/ and test/pipeline/ start no process: they may not import node:child_process.
 * @type {import('dependency-cruiser').IConfiguration}
 */

/** Which layers each layer may import, besides itself. generators/ is a layer at the top level. */
const LAYERS = {
  core: [],
  generators: ['core'],
  analyse: ['core'],
  plan: ['core', 'generators'],
  cloud: ['core', 'generators'],
  measure: ['core', 'generators', 'plan'],
  report: ['core', 'analyse'],
  pipeline: ['core', 'generators', 'analyse', 'plan', 'cloud', 'measure', 'report'],
  cli: ['core', 'pipeline'],
  // the project's own tools, above the CLI: help-md.ts writes docs/reference/cli.md from the program
  tools: ['core', 'cli'],
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
      name: 'unit-spawns-nothing',
      severity: 'error',
      comment: 'test/unit and test/pipeline run in-process: no child process (test/support/no-spawn.ts enforces it at run time too)',
      from: { path: '^test/(unit|pipeline)/' },
      to: { dependencyTypes: ['core'], path: '^(node:)?child_process$' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(generated|results|node_modules)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
