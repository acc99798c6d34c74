/**
 * Speak to where it runs (issue 51): launched as `coldstart` (npx, an app that installed the package) the
 * recorded command and the hints say `npx coldstart …`, through an npm script of the checkout `npm run … --`,
 * and every word keeps its quoting: summary.md recorded `--request GET /health`, which no shell reruns.
 * The test records a run from an app's folder (the CLI launched as bin/coldstart.js, --debug-mode: the fake
 * sampler) and runs the line summary.md records through a shell in that folder: it reruns the run, and the
 * rerun records the same line. A 404 on the first request names --request; `metrics` started in an app's
 * folder says it measures the generated cells, not the app.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { commandLine } from '../../metrics/cli/shared.ts';
import { appFolderNote } from '../../metrics/cli/run.ts';
import { PROJECT_ROOT } from '../../metrics/core/paths.ts';
import { shellWord, toolCommand } from '../../metrics/core/speak.ts';
import { answerProblem, NOT_FOUND_HINT } from '../../metrics/measure/app-answer.ts';
import { tempDir } from '../support/in-process.ts';
import { mainInProcess } from '../support/main-in-process.ts';

const BIN = path.join(PROJECT_ROOT, 'bin', 'coldstart.js');
const MAIN = path.join(PROJECT_ROOT, 'metrics', 'cli', 'main.ts');

/** The command summary.md records (its Method line's code span). */
function recorded(dir: string): string {
  const method = /^- \*\*Method:\*\* `(.+)` \(samples/m.exec(readFileSync(path.join(dir, 'summary.md'), 'utf8'));
  assert.ok(method, 'summary.md has its Method line');
  return method[1]!;
}

describe('speak to where it runs', () => {
  it('a recorded line keeps its quoting and names the command as it was launched', () => {
    const words = ['--entry', 'server.js', '--request', 'GET /health', '--name', "it's"];
    assert.equal(
      commandLine(['node', MAIN, 'measure', ...words], 'measure'),
      `npm run measure -- --entry server.js --request 'GET /health' --name 'it'\\''s'`,
    );
    assert.equal(
      commandLine(['node', BIN, 'measure', ...words], 'measure'),
      `npx coldstart measure --entry server.js --request 'GET /health' --name 'it'\\''s'`,
    );
    assert.equal(commandLine(['node', MAIN, 'run'], 'metrics'), 'npm run metrics');
    assert.equal(toolCommand('report', ['results/a b'], ['node', BIN]), "npx coldstart report 'results/a b'");
    assert.equal(toolCommand('report', ['results/x'], ['node', MAIN]), 'npm run report -- results/x');
    for (const word of ['$(touch x)', '`x`', 'a;b', '*', '~', 'a\nb', '']) {
      assert.deepEqual(execFileSync('sh', ['-c', `printf %s ${shellWord(word)}`]).toString(), word, JSON.stringify(word));
    }
  });

  it("the line summary.md records, run through a shell in the app's folder, reruns the run", () => {
    const app = tempDir();
    writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'my-app', private: true }));
    writeFileSync(
      path.join(app, 'server.js'),
      "require('node:http').createServer((q, s) => s.end('ok')).listen(process.env.PORT, '127.0.0.1');\n",
    );
    // installed as a dependency: `npx coldstart` finds node_modules/.bin/coldstart
    mkdirSync(path.join(app, 'node_modules', '.bin'), { recursive: true });
    symlinkSync(BIN, path.join(app, 'node_modules', '.bin', 'coldstart'));
    const args = ['measure', '--entry', 'server.js', '--request', 'GET /health', '--debug-mode', '--samples', '2', '--out', 'base'];
    const first = spawnSync(process.execPath, [BIN, ...args], { cwd: app, encoding: 'utf8', timeout: 120_000 });
    assert.equal(first.status, 0, first.stderr);
    const line = recorded(path.join(app, 'base'));
    assert.equal(line, "npx coldstart measure --entry server.js --request 'GET /health' --debug-mode --samples 2 --out base");
    // the hint at the end of the run speaks the same way
    assert.match(first.stdout, /measure the handler itself: npx coldstart measure --handler src\/index\.handler --event event\.json/);
    renameSync(path.join(app, 'base'), path.join(app, 'first'));
    const env = {
      ...process.env,
      PATH: `${path.join(app, 'node_modules', '.bin')}${path.delimiter}${process.env.PATH ?? ''}`,
      npm_config_offline: 'true',
    };
    const again = spawnSync('sh', ['-c', line], { cwd: app, env, encoding: 'utf8', timeout: 120_000 });
    assert.equal(again.status, 0, again.stderr);
    assert.equal(recorded(path.join(app, 'base')), line, 'the rerun records the same line');
  });

  it('a 404 on the first request says to name a route with --request', () => {
    assert.match(NOT_FOUND_HINT, /name one it answers with --request, e\.g\. --request 'GET \/health'/);
    const problem = answerProblem('GET /', { status: 200 }, 404, 'Not Found', NOT_FOUND_HINT);
    assert.match(problem!, new RegExp(`^GET / answered 404, expected 200 \\(${NOT_FOUND_HINT.replace(/[.()]/g, '\\$&')}\\): Not Found$`));
    assert.doesNotMatch(answerProblem('GET /', { status: 200 }, 500, 'x', NOT_FOUND_HINT)!, /--request/);
  });

  it("metrics started in an app's folder says it measures the generated cells, not the app, and names measure --entry", async () => {
    assert.equal(appFolderNote(PROJECT_ROOT), undefined);
    assert.equal(appFolderNote(path.join(PROJECT_ROOT, 'results')), undefined);
    const app = tempDir();
    assert.match(
      appFolderNote(app)!,
      /generated framework cells .*not the app in this folder; to measure your app: .*measure (-- )?--entry server\.js/,
    );
    const cwd = process.cwd();
    process.chdir(app);
    try {
      const result = await mainInProcess([
        'run',
        '--frameworks',
        'node-http',
        '--routes',
        '1',
        '--samples',
        '1',
        '--debug-mode',
        '--out',
        'out',
      ]);
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stderr, /^note: metrics measures coldstart's generated framework cells/m);
    } finally {
      process.chdir(cwd);
    }
  });
});
