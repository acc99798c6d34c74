/**
 * The eager wrapper of a user's handler (`measure --init-export`, generators/app-eager.ts) and the
 * cells `measure` plans with it: the same input gives the same bytes; imported as the Runtime
 * Interface Client imports it, a CommonJS or an ES module handler has its init awaited before the
 * handler is exported (the handler, calling init again on its event, finds it done); a missing or
 * failing init is one line. The cells the planner makes of it (it resolves runtimes and bundles, which
 * this layer may not spawn) are checked in test/e2e/measure-handler-init.test.ts.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, it } from 'node:test';
import { eagerWrapper, type EagerWrapperInput } from '../../generators/app-eager.ts';
import { tempDir } from '../support/in-process.ts';

/** A handler whose answer says whether its init had run before the event (a flag init sets, read before it calls init). */
const CJS_HANDLER = `let ready;
let work = 0;
exports.init = () => (ready ??= Promise.resolve().then(() => { for (let i = 0; i < 1000; i++) work += i; }));
exports.handler = async () => {
  const before = ready !== undefined;
  await exports.init();
  return { statusCode: 200, body: before ? 'before' : 'during the first event' };
};
`;
const ESM_HANDLER = `let ready;
export const init = () => (ready ??= Promise.resolve(1));
export const routes = { get: async () => ({ statusCode: 200, body: ready === undefined ? 'during the first event' : 'before' }) };
`;

function wrapperOf(dir: string, input: Omit<EagerWrapperInput, 'file'>, name: string, text: string): string {
  const file = path.join(dir, name);
  writeFileSync(file, text);
  const wrapper = path.join(dir, `wrapper-${path.basename(name, path.extname(name))}-${input.initExport}.mjs`);
  writeFileSync(wrapper, eagerWrapper({ file, ...input }));
  return wrapper;
}

type Handler = () => Promise<{ body: string }>;

describe('the eager wrapper of a handler', () => {
  const input = { file: '/app/src/index.js', esm: false, exportName: 'handler', initExport: 'init' };

  it('is the same bytes for the same input, and names the module, the init export and the handler in them', () => {
    assert.equal(eagerWrapper(input), eagerWrapper({ ...input }));
    const text = eagerWrapper(input);
    assert.match(text, /^\/\/ coldstart's eager wrapper .* "init" export awaited in INIT/);
    assert.ok(text.includes('const __csFile = "/app/src/index.js";'));
    assert.ok(text.includes('await __csInit.value.call(__csInit.holder);'));
    assert.ok(text.includes('export { __csHandler as handler };'));
    assert.ok(text.trimEnd().endsWith('__csStart(__csHandler);'), 'its own bootstrap starts after its top-level await');
    assert.notEqual(eagerWrapper({ ...input, initExport: 'setup' }), text);
  });

  it('loads CommonJS through the unwrapped require (the split), ESM by import() with a hook marking its body, a bundle plainly', () => {
    assert.match(eagerWrapper(input), /__csLoad\.load \? __csLoad\.load\.call\(__csParent, __csFile\) : require\(__csFile\)/);
    const esm = eagerWrapper({ ...input, file: '/app/src/index.mjs', esm: true });
    // with the split asked and module.registerHooks: the module's first statement marked, by the URL Node resolves it to
    assert.ok(esm.includes('const url = "file:///app/src/index.mjs";'));
    assert.match(esm, /hashbang \+ 'globalThis\.__coldstartBody\(\);'/);
    assert.match(esm, /try \{ __csApp = await import\(__csFile\); \} finally \{ hooks\.deregister\(\); \}/);
    // otherwise (Node 20, a count, no split asked) a plain import, and no split
    assert.match(esm, /\} else \{\n {2}__csApp = await import\(__csFile\);\n {2}__csLoad\.esm = true;\n\}/);
    assert.doesNotMatch(esm, /__csParent/);
    assert.match(eagerWrapper({ ...input, bundled: true }), /const __csApp = require\(__csFile\);/);
    assert.match(eagerWrapper({ ...input, esm: true, bundled: true }), /const __csApp = await import\(__csFile\);\n__csLoad\.esm = true;/);
  });

  it('exports a nested handler under its dotted name', () => {
    assert.ok(eagerWrapper({ ...input, exportName: 'api.v1.get' }).includes('export const api = { "v1": { "get": __csHandler } };'));
    assert.ok(eagerWrapper({ ...input, exportName: 'default.get' }).includes('export default { "get": __csHandler };'));
  });

  it('imported as the client imports it: the init has run before the first event, CommonJS and ES module alike', async () => {
    const dir = tempDir('coldstart-eager-');
    const cjs = wrapperOf(dir, { esm: false, exportName: 'handler', initExport: 'init' }, 'cjs.js', CJS_HANDLER);
    const esm = wrapperOf(dir, { esm: true, exportName: 'routes.get', initExport: 'init' }, 'esm.mjs', ESM_HANDLER);
    const a = (await import(pathToFileURL(cjs).href)) as { handler: Handler };
    assert.equal((await a.handler()).body, 'before');
    const b = (await import(pathToFileURL(esm).href)) as { routes: { get: Handler } };
    assert.equal((await b.routes.get()).body, 'before');
    // a transpiled module whose exports are on `default` only (CommonJS `exports.default`, an ES module's default export)
    const onDefault = 'let ready;\nconst init = () => (ready ??= Promise.resolve());\n';
    const answer = "async () => ({ body: ready === undefined ? 'during the first event' : 'before' })";
    const cjsDefault = wrapperOf(
      dir,
      { esm: false, exportName: 'handler', initExport: 'init' },
      'cjs-default.js',
      `${onDefault}exports.default = { init, handler: ${answer} };\n`,
    );
    const esmDefault = wrapperOf(
      dir,
      { esm: true, exportName: 'handler', initExport: 'init' },
      'esm-default.mjs',
      `${onDefault}export default { init, handler: ${answer} };\n`,
    );
    for (const wrapper of [cjsDefault, esmDefault]) {
      const loaded = (await import(pathToFileURL(wrapper).href)) as { handler: Handler };
      assert.equal((await loaded.handler()).body, 'before', wrapper);
    }
    // the handler as written (the lazy cell) initialises on its first event
    const lazyFile = path.join(dir, 'lazy.js');
    writeFileSync(lazyFile, CJS_HANDLER);
    const lazy = (await import(pathToFileURL(lazyFile).href)) as { default: { handler: Handler } };
    assert.equal((await lazy.default.handler()).body, 'during the first event');
  });

  it('fails its import with one line naming a missing, non-function or failing init export', async () => {
    const dir = tempDir('coldstart-eager-');
    const bad =
      'exports.notfn = 1;\nexports.fails = async () => { throw new Error("no database\\nat line 2"); };\nexports.handler = () => 1;\n';
    const cases: [string, RegExp][] = [
      ['init', /^the handler file exports no "init" \(it exports: notfn, fails, handler\)$/],
      ['notfn', /^the export "notfn" is a number, not a function$/],
      ['fails', /^the init export "fails" failed: no database$/],
    ];
    for (const [initExport, reason] of cases) {
      const wrapper = wrapperOf(dir, { esm: false, exportName: 'handler', initExport }, `bad-${initExport}.js`, bad);
      await assert.rejects(import(pathToFileURL(wrapper).href), (error: Error) => reason.test(error.message));
    }
  });
});
