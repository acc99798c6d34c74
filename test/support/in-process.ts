/**
 * Test helpers that start no process, for every layer (test/unit and test/pipeline import these,
 * never ./helpers.ts, which spawns): the project and fixture folders, temporary folders removed when
 * the test process exits, and waiting for a condition.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** The project's folder. */
export const ROOT = path.resolve(import.meta.dirname, '..', '..');
/** test/fixtures/. */
export const FIXTURES = path.join(ROOT, 'test', 'fixtures');

export function fixture(name: string): string {
  return path.join(FIXTURES, name);
}

const tempDirs: string[] = [];
process.once('exit', () => {
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
});

/** A fresh folder under the system's temp folder, removed when the test process exits. */
export function tempDir(prefix = 'coldstart-test-'): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  tempDirs.push(dir);
  return dir;
}

/** Whether `predicate` holds within `ms`, asked every `step` ms. */
export async function waitFor(predicate: () => boolean, ms: number, step = 50): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (predicate()) return true;
    await new Promise((r) => setTimeout(r, step));
  }
  return predicate();
}
