/**
 * Where a command works from (issue 38): the folder the user ran it in. npm runs this package's
 * scripts in the package's folder and names the user's folder in INIT_CWD; `npx coldstart` starts
 * there already; an INIT_CWD inherited from another npm command is not the user's. And where an
 * installed tool keeps its own files: outside its package folder.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { invocationDir } from '../../metrics/cli/invocation.ts';
import { commandScripts } from '../../metrics/cli/main.ts';
import { workRootOf } from '../../metrics/core/paths.ts';
import { ROOT } from '../support/in-process.ts';

const PROJECT = '/src/coldstart';
const SCRIPTS = new Set(['measure', 'metrics', 'run']);
/** what npm puts in a script's environment when `npm --prefix /src/coldstart run measure` is typed in /home/u/app */
const NPM_SCRIPT = { INIT_CWD: '/home/u/app', npm_package_json: `${PROJECT}/package.json`, npm_lifecycle_event: 'measure' };

describe('invocationDir', () => {
  it("is INIT_CWD for this package's command script run by npm in its folder", () => {
    assert.equal(invocationDir(NPM_SCRIPT, PROJECT, PROJECT, SCRIPTS), '/home/u/app');
  });

  it('is the working folder without npm (node, npx coldstart from an app)', () => {
    assert.equal(invocationDir({}, '/home/u/app', PROJECT, SCRIPTS), '/home/u/app');
  });

  it('is the working folder when INIT_CWD was inherited from another npm command', () => {
    // npm test (a script that is not a command) started the command line in a test's folder
    assert.equal(invocationDir({ ...NPM_SCRIPT, npm_lifecycle_event: 'test' }, PROJECT, PROJECT, SCRIPTS), PROJECT);
    assert.equal(invocationDir(NPM_SCRIPT, '/tmp/t1', PROJECT, SCRIPTS), '/tmp/t1');
    // the user's own project's script `"cs": "coldstart measure"`: npm runs it in that project's folder
    assert.equal(invocationDir({ ...NPM_SCRIPT, npm_package_json: '/home/u/app/package.json' }, PROJECT, PROJECT, SCRIPTS), PROJECT);
  });

  it('ignores an INIT_CWD that is not an absolute path', () => {
    assert.equal(invocationDir({ ...NPM_SCRIPT, INIT_CWD: 'app' }, PROJECT, PROJECT, SCRIPTS), PROJECT);
  });

  it('knows every npm script of package.json that runs the command line', () => {
    const scripts = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
    const cli = Object.keys(scripts).filter((name) => scripts[name]!.includes('metrics/cli/main.ts'));
    assert.ok(cli.length >= 10, 'the command scripts were found');
    const known = commandScripts();
    for (const name of cli) assert.ok(known.has(name), `npm run ${name} works from INIT_CWD`);
    assert.ok(!known.has('test') && !known.has('lint'), 'the project scripts are not commands');
  });
});

describe('workRootOf', () => {
  it('is the checkout itself', () => {
    assert.equal(workRootOf('/src/coldstart'), '/src/coldstart');
  });

  it('is node_modules/.cache/coldstart of the project that installed the package', () => {
    assert.equal(workRootOf('/home/u/app/node_modules/coldstart'), '/home/u/app/node_modules/.cache/coldstart');
    assert.equal(
      workRootOf('/home/u/app/node_modules/a/node_modules/coldstart'),
      '/home/u/app/node_modules/a/node_modules/.cache/coldstart',
    );
  });
});
