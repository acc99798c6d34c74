/**
 * docs/reference/cli.md is what `npm run docs:cli` writes from the program's own --help: it documents
 * every option every command defines, names no path of the machine that wrote it, and the committed
 * file is not stale. In-process: the program is built, never spawned.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { buildProgram } from '../../metrics/cli/main.ts';
import { CLI_REFERENCE, cliReference, withoutMachinePaths } from '../../metrics/tools/help-md.ts';

const ROOT = path.resolve(import.meta.dirname, '..', '..');

describe('the command-line reference (docs/reference/cli.md)', () => {
  const generated = cliReference();

  it('is the same as what npm run docs:cli writes (run it after changing an option)', () => {
    const committed = readFileSync(path.join(ROOT, CLI_REFERENCE), 'utf8');
    assert.ok(committed === generated, `${CLI_REFERENCE} is stale: run npm run docs:cli and commit the file`);
  });

  it('documents every command and every visible option the program defines', () => {
    const missing: string[] = [];
    for (const command of buildProgram().commands) {
      if (!generated.includes(`\n## ${command.name()}\n`)) missing.push(command.name());
      for (const option of command.options) {
        if (option.hidden) continue;
        const flag = option.long ?? option.short ?? '';
        if (!new RegExp(`${flag}(?![\\w-])`).test(generated)) missing.push(`${command.name()} ${flag}`);
      }
    }
    assert.deepEqual(missing, []);
  });

  it('is deterministic and names no path of this machine', () => {
    assert.equal(cliReference(), generated);
    for (const local of [process.execPath, ROOT]) assert.ok(!generated.includes(local), `the reference holds ${local}`);
    assert.equal(withoutMachinePaths(`default: ${JSON.stringify(process.execPath)}`), 'default: the node running coldstart');
  });
});
