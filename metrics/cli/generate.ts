/** `generate`: write the generated files only. */
import type { Command as PlainCommand } from 'commander';
import { Command } from '@commander-js/extra-typings';
import { generateFiles } from '../pipeline/generate.ts';
import { addTypedCommand } from './groups/common.ts';
import { addSourceGroup, sourceOf } from './groups/selection.ts';
import { displayPath } from './shared.ts';

export function registerGenerateCommand(program: PlainCommand): void {
  const command = addSourceGroup(new Command('generate').description('write the generated files only')).action(async (opts) => {
    const { files, dir } = await generateFiles(sourceOf(opts), (line) => process.stderr.write(`${line}\n`));
    process.stdout.write(`${files} files in ${displayPath(dir)}\n`);
  });
  addTypedCommand(program, command);
}
