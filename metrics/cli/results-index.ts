/** `results-index [DIR]`: write results/index.html, the page that lists the published run folders. */
import type { Command } from 'commander';
import { writeResultsIndex } from '../pipeline/results-index.ts';

export function registerResultsIndexCommand(program: Command): void {
  program
    .command('results-index')
    .description('write results/index.html: a page listing the run folders under results/published/')
    .argument('[dir]', 'the results folder (default: results/ of the checkout)')
    .action((dir: string | undefined) => {
      const { file, runs } = writeResultsIndex(dir);
      process.stdout.write(`wrote ${file} (${runs} published run${runs === 1 ? '' : 's'})\n`);
    });
}
