/** Commands beyond run/generate/report/clean, one module each; each registers itself on the program. */
import type { Command } from 'commander';

type Register = (program: Command) => void;

const EXTRA_COMMANDS: Register[] = [];

export function registerExtraCommands(program: Command): void {
  for (const register of EXTRA_COMMANDS) register(program);
}
