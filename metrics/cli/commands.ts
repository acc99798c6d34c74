/** Commands beyond run/generate/report/clean, one module each; each registers itself on the program. */
import type { Command } from 'commander';
import { registerCompareCommand } from '../analyse/compare.ts';
import { registerHyperfineCommand } from '../measure/hyperfine.ts';

type Register = (program: Command) => void;

const EXTRA_COMMANDS: Register[] = [registerHyperfineCommand, registerCompareCommand];

export function registerExtraCommands(program: Command): void {
  for (const register of EXTRA_COMMANDS) register(program);
}
