/**
 * The package cuts' preload (generators/package-cuts.ts) in a real node, without valgrind: the log it writes at exit
 * has the app's own process.cpuUsage() calls as marks (their results unchanged), an `enter` where a load goes into a
 * file of another package (scoped, nested, or the app's own file loaded by a package) and a `leave` where it returns;
 * a module of the same package, a builtin and a module already loaded make no cut. The app does not see the variable.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { PACKAGE_CUTS_ENV, writePackageCutsPreload } from '../../generators/package-cuts.ts';
import { tempDir } from '../support/helpers.ts';

function write(file: string, text: string): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
}

describe('the package cuts preload', () => {
  it('logs the marks and each load that enters and leaves another package, in order', () => {
    const dir = tempDir('coldstart-package-cuts-');
    const preload = writePackageCutsPreload(path.join(dir, 'coldstart'));
    const app = path.join(dir, 'app');
    const nm = path.join(app, 'node_modules');
    write(
      path.join(nm, 'alpha', 'index.js'),
      "require('./lib.js'); require('node:fs'); module.exports = [require('@s/beta'), require('@s/beta'), require('../../plugin.js')];\n",
    );
    write(path.join(nm, 'alpha', 'lib.js'), 'module.exports = 1;\n');
    write(path.join(nm, '@s', 'beta', 'index.js'), "module.exports = require('gamma');\n");
    write(path.join(nm, '@s', 'beta', 'node_modules', 'gamma', 'index.js'), 'module.exports = 3;\n');
    write(path.join(app, 'plugin.js'), 'module.exports = 4;\n');
    write(path.join(app, 'local.js'), 'module.exports = 5;\n');
    write(
      path.join(app, 'main.js'),
      [
        'const first = process.cpuUsage();',
        "require('./local.js'); require('alpha');",
        'const delta = process.cpuUsage(first);',
        `console.log(JSON.stringify({ seen: process.env.${PACKAGE_CUTS_ENV} ?? null, ok: delta.user >= 0 && delta.system >= 0 }));`,
      ].join('\n'),
    );
    const log = path.join(dir, 'log.json');
    const result = spawnSync(process.execPath, ['--require', preload, path.join(app, 'main.js')], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH, [PACKAGE_CUTS_ENV]: log },
    });
    assert.equal(result.status, 0, result.stderr);
    assert.deepEqual(JSON.parse(result.stdout), { seen: null, ok: true });
    const events = (JSON.parse(readFileSync(log, 'utf8')) as string[][]).map(([kind, file]) =>
      file === undefined ? [kind] : [kind, path.relative(app, file)],
    );
    assert.deepEqual(events, [
      ['mark'],
      ['enter', 'node_modules/alpha/index.js'],
      ['enter', 'node_modules/@s/beta/index.js'],
      ['enter', 'node_modules/@s/beta/node_modules/gamma/index.js'],
      ['leave'],
      ['leave'],
      ['enter', 'plugin.js'],
      ['leave'],
      ['leave'],
      ['mark'],
    ]);
  });

  it('does nothing without the variable', () => {
    const dir = tempDir('coldstart-package-cuts-');
    const preload = writePackageCutsPreload(path.join(dir, 'coldstart'));
    const result = spawnSync(process.execPath, ['--require', preload, '-e', 'console.log(process.cpuUsage.name)'], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH },
    });
    assert.equal(result.status, 0, result.stderr);
    assert.equal(result.stdout.trim(), 'cpuUsage');
  });
});
