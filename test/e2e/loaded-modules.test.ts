/**
 * The modules a server loads until it listens (bisect's per-package table, measure/loaded-modules.ts),
 * from one unrecorded run of an app written here: an ES module entry that imports an ES module of its
 * own, an ES module package and a CommonJS package from its node_modules, and one CommonJS file both
 * imported and required. Every file is listed once with its bytes on disk, by its package, and Node's
 * own modules by name. Before ES modules were listed, only the two CommonJS files came out.
 */
import assert from 'node:assert/strict';
import { mkdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { loadByPackage } from '../../metrics/core/packages.ts';
import { loadedModules } from '../../metrics/measure/loaded-modules.ts';
import { tempDir } from '../support/helpers.ts';

function write(file: string, text: string): string {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
  return file;
}

describe('the modules an ES module server loads until it listens', () => {
  const dir = tempDir('coldstart-loaded-esm-');
  const files = {
    entry: write(
      path.join(dir, 'app.mjs'),
      `import http from 'node:http';
import { createRequire } from 'node:module';
import { routes } from './routes.mjs';
import { shout } from 'esm-pkg';
import cjs from 'cjs-pkg';
import both from './both.cjs';
const again = createRequire(import.meta.url)('./both.cjs');
http.createServer((req, res) => res.end(shout(String(routes.length + cjs.n + both.n + again.n)))).listen(Number(process.env.PORT));
`,
    ),
    routes: write(path.join(dir, 'routes.mjs'), 'export const routes = Array.from({ length: 10 }, (_, i) => "/r" + i);\n'),
    both: write(path.join(dir, 'both.cjs'), 'module.exports = { n: 1 };\n'),
    esmPkg: write(path.join(dir, 'node_modules', 'esm-pkg', 'index.js'), 'export const shout = (s) => s.toUpperCase();\n'),
    cjsPkg: write(path.join(dir, 'node_modules', 'cjs-pkg', 'index.js'), 'module.exports = { n: 2 };\n'),
  };
  write(path.join(dir, 'node_modules', 'esm-pkg', 'package.json'), '{ "name": "esm-pkg", "type": "module", "main": "index.js" }\n');
  write(path.join(dir, 'node_modules', 'cjs-pkg', 'package.json'), '{ "name": "cjs-pkg", "main": "index.js" }\n');

  it('lists every file once, ES modules included, with its bytes; and by package', () => {
    const listed = loadedModules(files.entry, dir);
    assert.ok(listed.ok, listed.ok ? '' : listed.reason);
    const onDisk = listed.modules.filter((m) => !m.file.startsWith('node:'));
    assert.deepEqual(
      onDisk.map((m) => m.file),
      Object.values(files).sort(),
    );
    for (const m of onDisk) assert.equal(m.bytes, statSync(m.file).size, m.file);
    assert.ok(listed.modules.some((m) => m.file === 'node:http'));
    const packages = new Map(loadByPackage(onDisk).map((p) => [p.name, p.modules]));
    assert.equal(packages.get('esm-pkg'), 1);
    assert.equal(packages.get('cjs-pkg'), 1);
  });

  it('an app that fails before it listens: not listed, and why in one line from its stderr (read bounded)', () => {
    const failing = write(
      path.join(dir, 'fails.cjs'),
      `process.stderr.write('x'.repeat(10000) + '\\n'); throw new Error('no database');\n`,
    );
    const listed = loadedModules(failing, dir);
    assert.ok(!listed.ok, 'not listed');
    assert.match(listed.reason, /^exited 1: x{200}$/);
  });
});
