/**
 * The `bundle` build (metrics/plan/bundle.ts): one file that needs no node_modules and still
 * answers, rebuilt only when its input changes (the entry, a module it imports, a package, the target),
 * and a one-line reason when esbuild fails.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire, isBuiltin } from 'node:module';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import ts from 'typescript';
import { contractOf } from '../../generators/contract.ts';
import { loadGenerators } from '../../generators/registry.ts';
import type { FrameworkGenerator } from '../../generators/types.ts';
import { GENERATED_DIR, writeGenerated } from '../../generators/write.ts';
import { makeCell } from '../../metrics/core/cell.ts';
import { childEnvironment } from '../../metrics/measure/environment.ts';
import { runSample } from '../../metrics/measure/sample.ts';
import { bundleErrorLine, bundleFile } from '../../metrics/plan/bundle.ts';
import { ROOT, runCli, tempDir } from '../support/helpers.ts';

const requireFromGenerated = createRequire(path.join(GENERATED_DIR, 'index.js'));

/** Every real `require("x")` call in a JS file (string literals that merely contain the text do not count). */
function requiredSpecifiers(source: string): string[] {
  const file = ts.createSourceFile('bundle.js', source, ts.ScriptTarget.Latest, false, ts.ScriptKind.JS);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'require') {
      const [arg] = node.arguments;
      if (arg && ts.isStringLiteralLike(arg)) found.push(arg.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

function resolvesFromProject(specifier: string): boolean {
  try {
    requireFromGenerated.resolve(specifier);
    return true;
  } catch {
    return false;
  }
}

/** A scratch folder inside generated/ (so esbuild resolves the project's packages), removed by `use`'s end. */
async function inGenerated(use: (dir: string) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(path.join(GENERATED_DIR, '.bundle-test-'));
  try {
    await use(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('bundle: one file that needs no node_modules and still answers', () => {
  let generators: FrameworkGenerator[] = [];
  let out: string;
  before(async () => {
    generators = await loadGenerators();
    out = tempDir('coldstart-bundle-');
  });

  for (const name of ['fastify', 'express']) {
    it(`${name}: bundled, no bare require of an installed package, runs from a folder without node_modules`, async () => {
      const generator = generators.find((g) => g.name === name)!;
      const { file: input } = await writeGenerated(generator, 3, 'validated');
      const output = path.join(out, name, 'bundle.js');
      const outcome = await bundleFile(input, output, `node${process.versions.node.split('.')[0]}`);
      assert.ok(outcome.ok, outcome.ok ? '' : outcome.error);
      assert.deepEqual(
        readdirSync(path.dirname(output)).filter((f) => f.endsWith('.js')),
        ['bundle.js'],
        'one file',
      );

      const source = readFileSync(output, 'utf8');
      const leaking = requiredSpecifiers(source).filter(
        (s) => !isBuiltin(s) && !s.startsWith('.') && !path.isAbsolute(s) && resolvesFromProject(s),
      );
      assert.deepEqual(leaking, [], 'every package the app loads is inside the bundle');
      assert.ok(!source.includes(path.join(ROOT, 'node_modules')), 'no absolute path into node_modules');

      // run it where no node_modules can be found: it must be self-contained, answer, and reject a bad body
      const sample = await runSample({
        cell: makeCell({ framework: name, variant: 'validated', routes: 3, build: 'bundle' }),
        launch: { command: process.execPath, args: [output], cwd: out, env: childEnvironment().env },
        contract: contractOf(generator),
        phase: 'sample',
        index: 1,
        timeoutMs: 60_000,
        checkInvalidBody: true,
        firstHits: 0,
      });
      assert.equal(sample.ok, true, sample.error);
      assert.equal(sample.invalidBody?.ok, true, sample.invalidBody?.reason);
    });
  }

  it('is cached: rebuilt only when its input, or the target, changes', () =>
    inGenerated(async (dir) => {
      const input = path.join(dir, 'app.js');
      writeFileSync(input, "module.exports = require('seedrandom')('a')();\n");
      const output = path.join(out, 'cached', 'app.js');
      const built = async (target: string) => {
        const outcome = await bundleFile(input, output, target);
        assert.ok(outcome.ok, outcome.ok ? '' : outcome.error);
        return outcome.built;
      };
      assert.equal(await built('node20'), true);
      assert.equal(await built('node20'), false, 'same input: reused');
      writeFileSync(input, "module.exports = require('seedrandom')('b')();\n");
      assert.equal(await built('node20'), true, 'changed input: rebuilt');
      assert.equal(await built('node22'), true, 'another target: rebuilt');
    }));

  it('an edited module the entry imports (not the entry, not a package) rebuilds the bundle; an untouched one reuses it', () =>
    inGenerated(async (dir) => {
      const input = path.join(dir, 'entry.js');
      const dep = path.join(dir, 'lib', 'greeting.js');
      mkdirSync(path.dirname(dep));
      writeFileSync(input, "module.exports = require('./lib/greeting.js');\n");
      writeFileSync(dep, "module.exports = 'hello-one';\n");
      const output = path.join(out, 'imports', 'entry.js');
      const bundled = async () => {
        const outcome = await bundleFile(input, output, 'node20');
        assert.ok(outcome.ok, outcome.ok ? '' : outcome.error);
        return { built: outcome.built, text: readFileSync(output, 'utf8') };
      };
      const first = await bundled();
      assert.equal(first.built, true);
      assert.match(first.text, /hello-one/);
      const key = JSON.parse(readFileSync(`${output}.key`, 'utf8')) as { inputs: Record<string, string> };
      assert.deepEqual(Object.keys(key.inputs).sort(), [dep, input].sort(), 'the key holds every file esbuild read, by content');
      assert.equal((await bundled()).built, false, 'nothing changed: reused');
      writeFileSync(dep, "module.exports = 'hello-two';\n");
      const second = await bundled();
      assert.equal(second.built, true, 'an imported module changed: rebuilt');
      assert.match(second.text, /hello-two/);
      assert.doesNotMatch(second.text, /hello-one/);
      rmSync(dep);
      const gone = await bundleFile(input, output, 'node20');
      assert.ok(!gone.ok, 'a module that is gone: rebuilt, and esbuild says it cannot resolve it');
    }));

  it('measure --build bundle twice: an app module edited between the two is in the second bundle (its answer checked)', () => {
    const dir = tempDir('coldstart-bundle-measure-');
    const app = path.join(dir, 'app');
    mkdirSync(path.join(app, 'lib'), { recursive: true });
    writeFileSync(
      path.join(app, 'server.js'),
      "const http = require('node:http');\nconst { greeting } = require('./lib/greeting.js');\n" +
        'http.createServer((req, res) => res.end(greeting)).listen(Number(process.env.PORT), process.env.HOST);\n',
    );
    const measure = (word: string, out: string) => {
      writeFileSync(path.join(app, 'lib', 'greeting.js'), `exports.greeting = '${word}';\n`);
      const args = ['measure', '--entry', path.join(app, 'server.js'), '--build', 'bundle', '--expect-body', `^${word}$`];
      return runCli([...args, '--samples', '1', '--warmup', '0', '--out', path.join(dir, out)]);
    };
    const said = (r: { status: number | null; stdout: string; stderr: string }) => `exit ${String(r.status)}\n${r.stdout}\n${r.stderr}`;
    const first = measure('first-greeting', 'one');
    assert.equal(first.status, 0, said(first));
    const second = measure('second-greeting', 'two');
    assert.equal(second.status, 0, `a stale bundle would answer first-greeting: ${said(second)}`);
  });

  it('a file esbuild cannot bundle fails with one line naming the reason, and leaves no bundle', () =>
    inGenerated(async (dir) => {
      const input = path.join(dir, 'broken.js');
      writeFileSync(input, "require('coldstart-no-such-package-xyz');\n");
      const output = path.join(out, 'broken', 'broken.js');
      const outcome = await bundleFile(input, output, 'node20');
      assert.ok(!outcome.ok);
      assert.match(outcome.error, /^bundle failed \(esbuild\): Could not resolve "coldstart-no-such-package-xyz" \(.*broken\.js:1\)$/);
      assert.ok(!existsSync(output));
    }));

  it("any other error is its message's first line", () => {
    assert.equal(bundleErrorLine(new Error('boom\nsecond line')), 'bundle failed: boom');
  });
});
