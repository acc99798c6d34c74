/**
 * Every command in the docs parses (issue 51): each `npm run …` and `npx coldstart …` line of README.md
 * and docs/guide/*.md — in a fenced block (with its `\` continuations) or an inline code span — is
 * parsed by the program's own parser (specOfArgv: commander's required options and value parsers, and
 * run's and measure's spec, nothing run), so an example missing a required option fails the suite.
 * Synopsis lines (`[options]`, `…`, `FILE...`, `a|b`, `<dir>`) are forms, not commands, and are left out;
 * the npm scripts that are not coldstart's command line (test, docs:cli…) too.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { exitOfError, specOfArgv } from '../../metrics/cli/main.ts';
import { PROJECT_ROOT } from '../../metrics/core/paths.ts';
import { appFolder, coldstartArgs, commandLines, shellWords, SYNOPSIS } from '../support/doc-commands.ts';

const FILES = ['README.md', ...readdirSync(path.join(PROJECT_ROOT, 'docs', 'guide')).map((f) => path.join('docs', 'guide', f))].filter(
  (f) => f.endsWith('.md'),
);
describe('every command in the docs parses', () => {
  it('shellWords and commandLines read what a shell and the page say', () => {
    assert.deepEqual(shellWords(`npm run measure -- --request 'GET /health' -x "a b"   # a comment`), [
      'npm',
      'run',
      'measure',
      '--',
      '--request',
      'GET /health',
      '-x',
      'a b',
    ]);
    const page = 'see `npm run compare -- a b`\n```sh\nnpm run metrics -- --samples 3 \\\n  --routes 1\n```\n';
    assert.deepEqual(commandLines(page), [
      { line: 1, command: 'npm run compare -- a b' },
      { line: 3, command: 'npm run metrics -- --samples 3 --routes 1' },
    ]);
    assert.deepEqual(coldstartArgs('npm run metrics -- -f fastify'), ['run', '-f', 'fastify']);
    assert.equal(coldstartArgs('npm run docs:cli'), undefined);
  });

  const cwd = process.cwd();
  const app = appFolder();
  for (const file of FILES) {
    const commands = commandLines(readFileSync(path.join(PROJECT_ROOT, file), 'utf8'))
      .filter((c) => !SYNOPSIS.test(c.command))
      .map((c) => ({ ...c, args: coldstartArgs(c.command) }))
      .filter((c): c is typeof c & { args: string[] } => c.args !== undefined);
    if (!commands.length) continue;
    it(`${file}: ${commands.length} command lines parse`, async () => {
      const failed: string[] = [];
      process.chdir(app);
      for (const { line, command, args } of commands) {
        try {
          await specOfArgv(args);
        } catch (error) {
          // --help and a bare `npx coldstart` print the help: exit 0
          if (exitOfError(error).code !== 0) failed.push(`${file}:${line}: ${command}\n    ${(error as Error).message.split('\n')[0]}`);
        }
      }
      process.chdir(cwd);
      assert.deepEqual(failed, []);
    });
  }
});
