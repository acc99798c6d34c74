/**
 * Hostile folder names, generated (issue 46, item 5): a folder's name is text from outside like any
 * other. fast-check builds names from the pieces that act on a terminal or a page (ESC ] 0 title
 * sequences, a screen clear, CSI as C1, U+202E and the other bidi marks, CR, BEL, markup) and drives
 * them, in-process, through `report`, `compare`, `merge` and `results:index`: no control or bidi
 * character reaches what they print (stdout, stderr) or the pages they write (HTML, markdown, CSV,
 * SVG, JSON), and each page keeps its format's rules (test/support/inert.ts). `results:index` wrote
 * the raw bytes of a published folder's name into index.html and RESULTS.md, and `report` printed
 * them on the terminal.
 */
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { fixture, tempDir } from '../support/in-process.ts';
import { assertEveryOutputInert } from '../support/inert.ts';
import { mainInProcess } from '../support/main-in-process.ts';

const PIECES = [
  '\u001b]0;owned\u0007',
  '\u001b[2J',
  '\u001b[31m',
  '\u009b1m',
  '\u009d0;t\u009c',
  '\u202e',
  '\u2066',
  '\u200f',
  '\r',
  '\n',
  '\u0007',
  '\u007f',
  '\t',
  '<b>bold',
  '</script>',
  '|',
  '`',
  ',',
  '"',
  '&amp;',
];

/** A folder name: hostile pieces and arbitrary code points, without `/` and NUL (no file system takes them), at most 60 characters. */
const hostileName = fc
  .array(fc.oneof(fc.constantFrom(...PIECES), fc.string({ unit: 'binary', maxLength: 4 })), { minLength: 1, maxLength: 6 })
  // eslint-disable-next-line no-control-regex
  .map((parts) => `r${parts.join('').replace(/[/\u0000]/g, '_')}`.slice(0, 60));

// eslint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

const shown = (text: string) => JSON.stringify(text.slice(Math.max(0, text.search(UNSAFE) - 40), text.search(UNSAFE) + 20));

function assertClean(what: string, text: string): void {
  assert.ok(!UNSAFE.test(text), `${what}: a control or bidi character reached it: ${shown(text)}`);
}

/** A run folder at `dir` holding the golden run's meta.json and its samples of `frameworks` only. */
function runFolder(dir: string, frameworks: readonly string[]): void {
  const golden = fixture('golden-run');
  mkdirSync(dir, { recursive: true });
  copyFileSync(path.join(golden, 'meta.json'), path.join(dir, 'meta.json'));
  const lines = readFileSync(path.join(golden, 'samples.jsonl'), 'utf8')
    .split('\n')
    .filter((line) => line && frameworks.includes((JSON.parse(line) as { cell: { framework: string } }).cell.framework));
  writeFileSync(path.join(dir, 'samples.jsonl'), `${lines.join('\n')}\n`);
}

/** Every file under `dir` a command wrote (the inputs samples.jsonl and meta.json of the parts aside), checked clean. */
function assertFolderClean(dir: string): void {
  for (const entry of readdirSync(dir)) {
    const file = path.join(dir, entry);
    if (statSync(file).isDirectory()) continue;
    assertClean(`${entry} in ${JSON.stringify(dir)}`, readFileSync(file, 'utf8'));
  }
}

describe('hostile folder names through report, compare, merge and results:index (fast-check)', () => {
  it('no control or bidi character reaches the terminal or a page', async () => {
    await fc.assert(
      fc.asyncProperty(hostileName, hostileName, async (a, b) => {
        fc.pre(a !== b);
        const root = tempDir('coldstart-hostile-folders-');
        const first = path.join(root, 'published', a);
        const second = path.join(root, 'published', `${b}-b`);
        runFolder(first, ['fastify', 'hono']);
        runFolder(second, ['node-http']);
        const merged = path.join(root, `${a}-merged`);
        const commands = [
          ['report', first],
          ['compare', first, second, '--out', path.join(root, `${b}.md`)],
          ['merge', first, second, '--out', merged],
          ['results-index', root],
        ];
        for (const args of commands) {
          const result = await mainInProcess(args);
          assert.ok(result.code === 0 || result.code === 1, `${args[0]}: exit ${result.code}: ${result.stderr}`);
          assertClean(`${args[0]}'s stdout`, result.stdout);
          assertClean(`${args[0]}'s stderr`, result.stderr);
        }
        for (const dir of [first, merged]) {
          assertEveryOutputInert(dir);
          assertFolderClean(dir);
        }
        assertFolderClean(root);
      }),
      { numRuns: 5, seed: 46, includeErrorInReport: true },
    );
  });
});

describe('the audit cases, one each', () => {
  const name = 'run\u001b]0;owned\u0007\u001b[2J\u001b[H\u202e';
  it('results:index: a published folder named with ESC ] 0, a screen clear and U+202E reaches neither page nor terminal raw', async () => {
    const root = tempDir('coldstart-hostile-index-');
    runFolder(path.join(root, 'published', name), ['fastify']);
    const result = await mainInProcess(['results-index', root]);
    assert.equal(result.code, 0, result.stderr);
    assertClean('stdout', result.stdout);
    for (const page of ['index.html', 'RESULTS.md']) {
      const text = readFileSync(path.join(root, page), 'utf8');
      assertClean(page, text);
      // the folder is still named (its escapes as spaces) and linked (percent-encoded)
      assert.match(text, /run \\?\]0;owned +\\?\[2J +\\?\[H/, `${page} names the folder`);
      assert.ok(text.includes(encodeURIComponent(name)), `${page} links the folder`);
    }
  });
  it("lambda:import: a log file's name with an OSC sequence is printed escaped", async () => {
    const dir = tempDir('coldstart-hostile-import-');
    const file = path.join(dir, `coldstart-fastify-100-validated\u001b]8;;http:x\u0007.txt`);
    copyFileSync(fixture(path.join('cloud', 'coldstart-fastify-100-validated.txt')), file);
    const result = await mainInProcess(['lambda-import', file, '--out', path.join(dir, `out\u001b]0;t\u0007`)]);
    assert.ok(result.stdout.includes('out ]0;t '), result.stdout);
    assertClean('stdout', result.stdout);
    assertClean('stderr', result.stderr);
  });
});
