/** `merge RUN... --out DIR`: its options; the join itself is pipeline/merge.ts. */
import type { Command } from 'commander';
import { machinesDiffer, runMerge } from '../pipeline/merge.ts';
import { say, warn } from './shared.ts';

export function registerMergeCommand(program: Command): void {
  program
    .command('merge')
    .description('join run folders (e.g. the shards of --shard i/n from several machines) into one run folder and write its report')
    .argument('<runs...>', 'the run folders to join (samples.jsonl read line by line, a line at most 4 MB; meta.json at most 16 MB)')
    .requiredOption('-o, --out <dir>', 'the merged run folder (new or empty)')
    .option('--partial', 'also join a part that was interrupted or did not finish (a live run is always refused)')
    .action(async (runs: string[], opts: { out: string; partial?: boolean }) => {
      const result = await runMerge(runs, opts.out, warn, opts.partial === true);
      const note = machinesDiffer(result.parts) ? ' (parts from different machines: see "Merged run" in summary.md)' : '';
      say(`merged ${result.parts.length} runs into ${result.dir} (summary.md)${note}`);
    });
}
