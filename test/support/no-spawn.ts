/**
 * The guard of the in-process test layers (test/unit, test/pipeline), loaded with
 * `node --import tsx --import ./test/support/no-spawn.ts`: every way node:child_process starts a
 * process throws, so a test that would spawn (a runtime's `--version`, a sample, npm) fails at once
 * with the function it called instead of slowing the layer down. Named imports see it too
 * (syncBuiltinESMExports).
 */
import childProcess from 'node:child_process';
import { syncBuiltinESMExports } from 'node:module';

const GUARDED = ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork'] as const;

for (const name of GUARDED) {
  Object.defineProperty(childProcess, name, {
    configurable: true,
    writable: true,
    value: () => {
      throw new Error(`child_process.${name}: this test layer starts no process (put the test in test/e2e)`);
    },
  });
}
syncBuiltinESMExports();
