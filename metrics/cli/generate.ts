/** `generate`: write the generated files only. */
import type { Command } from 'commander';
import { generateFiles } from '../pipeline/generate.ts';
import { addSelectionOptions, selectionOf } from './options.ts';
import { displayPath } from './shared.ts';

export function registerGenerateCommand(program: Command): void {
  addSelectionOptions(program.command('generate').description('write the generated files only')).action(
    async (opts: Record<string, unknown>) => {
      const { files, dir } = await generateFiles(selectionOf(opts), (line) => process.stderr.write(`${line}\n`));
      process.stdout.write(`${files} files in ${displayPath(dir)}\n`);
    },
  );
}
