/**
 * Import cycles among the project's own files, type-only imports included (tsPreCompilationDeps: dependency-cruiser
 * reads the TypeScript before type imports are erased). Run by `npm run cycles`, part of `npm run lint`.
 * @type {import('dependency-cruiser').IConfiguration}
 */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'one module imports another that imports it back, directly or through others (a type-only import counts)',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(generated|results|node_modules)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
