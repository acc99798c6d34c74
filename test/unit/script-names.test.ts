/**
 * `npx coldstart <name>` takes the npm script's name as well as the command's (issue 38): every npm
 * script that runs the command line answers to its own name through the program, so the README's
 * "npx runs the same commands" holds for `npx coldstart metrics`.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { buildProgram } from '../../metrics/cli/main.ts';
import { ROOT } from '../support/in-process.ts';

const scripts = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;

describe('npm script names are command names', () => {
  it('each script that runs metrics/cli/main.ts names a command the program knows by that script name', () => {
    const program = buildProgram();
    const cli = Object.entries(scripts).filter(([, line]) => line.includes('metrics/cli/main.ts'));
    assert.ok(cli.length >= 10, 'the command scripts were found');
    for (const [script, line] of cli) {
      const command = /metrics\/cli\/main\.ts (\S+)/.exec(line)?.[1];
      const found = program.commands.find((c) => c.name() === command);
      assert.ok(found, `${script}: ${command} is a command`);
      assert.ok(found.name() === script || found.aliases().includes(script), `npx coldstart ${script} reaches ${command}`);
    }
  });
});
