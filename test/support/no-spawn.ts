/**
 * Loaded with `--import` for test/unit and test/pipeline: those tests run in-process, so starting a
 * child process is a mistake there. Every way node:child_process starts one throws instead (the ESM
 * named exports included, through syncBuiltinESMExports). dependency-cruiser's unit-spawns-nothing
 * rule catches a direct import; this catches one made through the code under test.
 *
 * In the test runner's own process (no NODE_TEST_CONTEXT) nothing is patched: it spawns the test files.
 */
import { createRequire, syncBuiltinESMExports } from 'node:module';

const STARTERS = ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork'] as const;

if (process.env.NODE_TEST_CONTEXT !== undefined) {
  const childProcess = createRequire(import.meta.url)('node:child_process') as Record<(typeof STARTERS)[number], unknown>;
  for (const name of STARTERS) {
    childProcess[name] = () => {
      throw new Error(`child_process.${name}: a unit or pipeline test starts no process (test/support/no-spawn.ts); move it to test/e2e/`);
    };
  }
  syncBuiltinESMExports();
}
