/**
 * `measure`'s usage errors and its parsers, in-process (main() with no process started): each bad input
 * is one line and exit 2 before anything runs, and no run folder is left; requests, handlers, names
 * and the Lambda task root read as documented. The real runs of `measure` are in test/e2e/measure.
 */
import assert from 'node:assert/strict';
import { existsSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { appNameOf, lambdaTaskRoot, parseRequest } from '../../metrics/core/app.ts';
import { parseHandler } from '../../metrics/pipeline/apps.ts';
import { ROOT, tempDir } from '../support/in-process.ts';
import { mainInProcess, type MainResult } from '../support/main-in-process.ts';

/** A folder of apps that resolves the project's packages (a node_modules link), as a user's project does. */
function appFolder(files: Record<string, string>): string {
  const dir = tempDir('coldstart-apps-');
  symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
  for (const [name, text] of Object.entries(files)) writeFileSync(path.join(dir, name), text);
  return dir;
}

const PLAIN = `require('node:http').createServer((q, s) => s.end('{"ok":true}')).listen(process.env.PORT);`;

describe('measure: bad input', () => {
  it('is a one-line error and exit 2 before anything runs', async () => {
    const apps = appFolder({
      'ok.js': PLAIN,
      'h.js': 'exports.handler = async () => ({});',
      'bad.json': '{ not json',
      'e.json': '{}',
    });
    const out = path.join(tempDir(), 'never');
    const cases: [string[], RegExp][] = [
      [['--entry', path.join(apps, 'missing.js')], /--entry: .*missing\.js does not exist/],
      [['--handler', path.join(apps, 'h')], /--handler: ".*h" is not FILE\.export/],
      [['--handler', path.join(apps, 'h.handler')], /--handler needs --event FILE/],
      [['--handler', path.join(apps, 'h.handler'), '--event', path.join(apps, 'bad.json')], /--event: .*bad\.json is not JSON/],
      [['--handler', path.join(apps, 'nothere.handler'), '--event', path.join(apps, 'bad.json')], /--handler: no module/],
      [['--entry', path.join(apps, 'ok.js'), '--request', 'FETCH /x'], /--request: "FETCH \/x" is not "METHOD \/path"/],
      // header injection: a control character in the path or the content type is a usage error, not a failed sample
      [['--entry', path.join(apps, 'ok.js'), '--request', 'GET /a\u0001b'], /--request: "GET \/a b" is not "METHOD \/path"/],
      [['--entry', path.join(apps, 'ok.js'), '--request', 'GET /a\r\nX-Evil: 1'], /--request: "GET \/a X-Evil: 1" is not/],
      [
        ['--entry', path.join(apps, 'ok.js'), '--body', path.join(apps, 'bad.json'), '--content-type', 'text/plain\r\nX-Evil: 1'],
        /--content-type: "text\/plain X-Evil: 1" is not a media type/,
      ],
      // patterns the linear-time engine (RE2) cannot run: a backreference, a lookahead, a lookbehind, a bad class
      [
        ['--entry', path.join(apps, 'ok.js'), '--expect-body', '(a)\\1'],
        /--expect-body: not a pattern the linear-time engine \(RE2\) can run: invalid escape sequence/,
      ],
      [['--entry', path.join(apps, 'ok.js'), '--expect-body', 'ok(?=true)'], /--expect-body: .*unsupported Perl syntax: `\(\?=`/],
      [['--entry', path.join(apps, 'ok.js'), '--expect-body', '(?<!x)ok'], /--expect-body: not a pattern the linear-time engine/],
      [['--entry', path.join(apps, 'ok.js'), '--expect-body', '[ok'], /--expect-body: .*missing closing \]/],
      [['--entry', path.join(apps, 'ok.js'), '--name', 'Bad Name'], /--name: "Bad Name" is not a name/],
      [['--entry', path.join(apps, 'ok.js'), '--entry', path.join(apps, 'ok.js')], /two apps are named "ok"/],
      [[], /give a server with --entry FILE or a Lambda handler with --handler FILE\.export/],
      [['--entry', path.join(apps, 'ok.js'), '--cwd', path.join(apps, 'no-such-folder')], /--cwd: .*no-such-folder is not a folder/],
      // --init-export (issue 41): on a handler, with an eager cell, an identifier; --init on a handler needs it
      [['--entry', path.join(apps, 'ok.js'), '--init-export', 'init'], /^coldstart: --init-export does nothing without --handler/],
      [
        ['--handler', path.join(apps, 'h.handler'), '--event', path.join(apps, 'e.json'), '--init-export', 'init', '--init', 'lazy'],
        /--init-export does nothing without an eager cell \(--init eager\)/,
      ],
      [
        ['--handler', path.join(apps, 'h.handler'), '--event', path.join(apps, 'e.json'), '--init', 'eager'],
        /--init does nothing without a generated Lambda cell \(--target lambda\), or measure --handler with --init-export/,
      ],
      [
        ['--handler', path.join(apps, 'h.handler'), '--event', path.join(apps, 'e.json'), '--init-export', 'app.ready'],
        /--init-export: "app\.ready" is not a JavaScript identifier/,
      ],
    ];
    const results: MainResult[] = [];
    for (const [args] of cases) results.push(await mainInProcess(['measure', ...args, '--out', out]));
    results.forEach((result, i) => {
      assert.equal(result.code, 2, `${cases[i]![0].join(' ')}: ${result.stderr}`);
      assert.match(result.stderr, cases[i]![1]);
      assert.equal(result.stderr.trim().split('\n').length, 1, result.stderr);
    });
    assert.equal(existsSync(out), false, 'no run folder is left behind');
  });
});

describe('measure: parsing', () => {
  it('reads requests, handlers and names', () => {
    assert.deepEqual(parseRequest('post /orders?x=1'), { method: 'POST', path: '/orders?x=1' });
    assert.throws(() => parseRequest('/orders'), /is not "METHOD \/path"/);
    const apps = appFolder({ 'index.mjs': 'export const main = () => 1;', 'x.js': '' });
    assert.deepEqual(parseHandler('index.main', apps), { file: path.join(apps, 'index.mjs'), exportName: 'main' });
    // as Lambda reads a Handler setting: the module up to the first dot, the rest a (nested) export
    assert.deepEqual(parseHandler('x.js.handler', apps), { file: path.join(apps, 'x.js'), exportName: 'js.handler' });
    assert.deepEqual(parseHandler('./index.api.get', apps), { file: path.join(apps, 'index.mjs'), exportName: 'api.get' });
    assert.throws(() => parseHandler('index.2x', apps), /"2x" is not an export name/);
    // the task root: the folder the handler was named from when it lies inside it (Lambda's Handler relative to it), else its own
    assert.deepEqual(lambdaTaskRoot('/p/src/index.mjs', 'handler', '/p'), { taskRoot: '/p', handler: 'src/index.handler' });
    assert.deepEqual(lambdaTaskRoot('/p/h.cjs', 'api.get', '/p'), { taskRoot: '/p', handler: 'h.api.get' });
    assert.deepEqual(lambdaTaskRoot('/elsewhere/h.js', 'handler', '/p'), { taskRoot: '/elsewhere', handler: 'h.handler' });
    assert.deepEqual(lambdaTaskRoot('/p/../q/h.js', 'handler', '/p'), { taskRoot: '/q', handler: 'h.handler' });
    assert.equal(appNameOf('/a/Orders API.mjs'), 'orders-api');
    assert.equal(appNameOf('/a/1.js'), 'app-1');
  });
});
