/** `generate`: write the generated files only. */
import type { Command as PlainCommand } from 'commander';
import { Command } from '@commander-js/extra-typings';
import { generateFiles } from '../pipeline/generate.ts';
import { addTypedCommand } from './groups/common.ts';
import { addSourceGroup, sourceOf } from './groups/selection.ts';
import { displayPath, say, tell } from './shared.ts';

export function registerGenerateCommand(program: PlainCommand): void {
  const command = addSourceGroup(new Command('generate').description('write the generated files only')).action(async (opts) => {
    const { files, dir } = await generateFiles(sourceOf(opts), tell);
    say(`${files} files in ${displayPath(dir)}`);
  });
  addTypedCommand(program, command);
}
