/**
 * No generated pointer is dead (issue 38): every "see docs/guide/x.md", "the README's section Y",
 * markdown link, href and "see X in summary.md" in what the tool writes resolves to a real file and
 * section. Collected from the outputs of the golden run re-reported and of fake runs (the default
 * server run, a Lambda run with a stale calibration and levers, a counted run), from the lines those
 * runs print, and from every string literal of metrics/, generators/ and test/ (terminal hints, usage
 * errors, skip messages) that names the documentation. test/support/pointers.ts says what a pointer is.
 */
import assert from 'node:assert/strict';
import { copyFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import { writeReport } from '../../metrics/report/write.ts';
import { fixture, ROOT, tempDir } from '../support/in-process.ts';
import { mainInProcess } from '../support/main-in-process.ts';
import { docPointers, runFilePointers, runSections, stringsOf, type Found } from '../support/pointers.ts';

/** Every pointer of a run folder's text files and of the lines printed about it. */
function runPointers(dir: string, printed: string): Found[] {
  const files = readdirSync(dir).filter((f) => f.endsWith('.md') || f.endsWith('.html'));
  return [...files.flatMap((f) => runFilePointers(path.join(dir, f), ROOT)), ...runSections(printed, dir), ...docPointers(printed, ROOT)];
}

function dead(found: Found[], where: string): string[] {
  return found.filter((f) => f.dead).map((f) => `${where}: ${f.pointer} (${f.dead})`);
}

describe('every pointer in generated text resolves', () => {
  const runs = new Map<string, Found[]>();

  before(async () => {
    const golden = tempDir('coldstart-pointers-golden-');
    for (const file of ['samples.jsonl', 'meta.json']) copyFileSync(path.join(fixture('golden-run'), file), path.join(golden, file));
    const printed: string[] = [];
    await writeReport(golden, { warn: (line) => printed.push(line) });
    runs.set('golden', runPointers(golden, printed.join('\n')));
    const fakes: Record<string, string[]> = {
      default: [],
      lambda: ['-f', 'node-http,hono', '-r', '1,10', '--target', 'lambda', '--build', 'plain,bundle', '--lambda-memory', '512,1024'],
      counted: ['-f', 'node-http', '-r', '1,10', '--measure', 'time,instructions'],
    };
    for (const [name, args] of Object.entries(fakes)) {
      const dir = path.join(tempDir(`coldstart-pointers-${name}-`), 'run');
      const result = await mainInProcess(['run', '--debug-mode', ...args, '--out', dir]);
      assert.equal(result.code, 0, `${name}: ${result.stderr}`);
      runs.set(name, runPointers(dir, `${result.stdout}\n${result.stderr}`));
    }
  });

  it('finds pointers to follow in every run', () => {
    for (const [name, found] of runs) assert.ok(found.length >= 3, `${name}: ${found.map((f) => f.pointer).join(', ')}`);
    // the Lambda run (its calibration ended more than a quarter before the fake run's date) points at the calibration's section
    assert.ok(
      runs.get('lambda')!.some((f) => f.pointer.startsWith('docs/guide/lambda.md#what-lambda-adds-the-calibration')),
      runs
        .get('lambda')!
        .map((f) => f.pointer)
        .join(', '),
    );
  });

  it('the outputs and the printed lines', () => {
    assert.deepEqual(
      [...runs].flatMap(([name, found]) => dead(found, name)),
      [],
    );
  });

  it('the string literals of the code and the tests (hints, errors, skip messages)', () => {
    const files = ['metrics', 'generators', 'test', 'bin'].flatMap((top) =>
      readdirSync(path.join(ROOT, top), { recursive: true, encoding: 'utf8' })
        .filter((f) => /\.(ts|js|cjs|mjs)$/.test(f) && !f.includes('node_modules'))
        .map((f) => path.join(top, f)),
    );
    // in test/ only skip reasons are text a user reads (a test's names and assertions are not); the pointer reader's own words aside
    const reader = path.join('test', 'support', 'pointers.ts');
    const found = files
      .filter((f) => f !== reader)
      .flatMap((f) => stringsOf(path.join(ROOT, f), f.startsWith('test')).flatMap((s) => dead(docPointers(s, ROOT), f)));
    assert.deepEqual(found, []);
  });
});

describe('the pointer reader finds the dead ones', () => {
  const deadOf = (text: string) =>
    docPointers(text, ROOT)
      .filter((f) => f.dead)
      .map((f) => f.dead);

  it('a documentation path, its anchor, its quoted section and "see X in" a page', () => {
    assert.deepEqual(deadOf('see docs/guide/lambda.md#what-lambda-adds-the-calibration'), []);
    assert.deepEqual(deadOf('see docs/guide/counting-instructions.md ("What counts leave out")'), []);
    assert.deepEqual(deadOf('see Building mion in docs/guide/frameworks.md'), []);
    assert.deepEqual(deadOf('see docs/guide/nowhere.md'), ['no file docs/guide/nowhere.md']);
    assert.deepEqual(deadOf('docs/guide/lambda.md#no-such-heading'), ['no heading #no-such-heading in docs/guide/lambda.md']);
    assert.deepEqual(deadOf('docs/guide/lambda.md ("No such part")'), ['no section "No such part" in docs/guide/lambda.md']);
    assert.deepEqual(deadOf('see Building mion in docs/guide/lambda.md'), ['no section "Building mion" in docs/guide/lambda.md']);
  });

  it('the README only with a section it has', () => {
    assert.deepEqual(deadOf('see the README.'), ['names no section of the README']);
    assert.deepEqual(deadOf('see Building mion in the README'), ['names no section of the README']);
    assert.deepEqual(deadOf(`the README's section "Exit codes"`), []);
    assert.deepEqual(deadOf(`the README's section "Nothing here"`), ['no section "Nothing here" in README.md']);
    assert.deepEqual(deadOf('README.md#exit-codes'), []);
    // a package's own README is not this project's: a pointer to it names no section here
    assert.deepEqual(deadOf('@fastify/aws-lambda README, "Lower cold start latency"'), []);
    assert.deepEqual(deadOf('the aws-lambda README'), ['names no section of the README']);
  });

  it("a run folder's sections", () => {
    const dir = tempDir('coldstart-pointers-reader-');
    writeFileSync(path.join(dir, 'summary.md'), '# Run\n\n## Warnings\n\n- ⚠ one\n');
    const deadIn = (text: string) =>
      runSections(text, dir)
        .filter((f) => f.dead)
        .map((f) => f.dead);
    assert.deepEqual(deadIn(`see Warnings in ${path.join(dir, 'summary.md')}`), []);
    assert.deepEqual(deadIn('see Failures in summary.md'), ['no section "Failures" in summary.md']);
    assert.deepEqual(deadIn('see Anything in levers.md'), ['no levers.md in the run folder']);
  });
});
