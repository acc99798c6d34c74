/**
 * coldstart's command line in this process: main() on an argument list, with what it wrote on stderr
 * captured and process.exitCode left as it was. For the in-process layers: only command lines that
 * start no process and print nothing on stdout belong here (usage errors). stdout is not captured: the
 * test runner reports on it, and a report written while it was captured would be lost.
 */
import { main } from '../../metrics/cli/main.ts';

export interface MainResult {
  code: number;
  stderr: string;
}

/** Calls may not overlap: stderr is this process's. */
export async function mainInProcess(args: readonly string[]): Promise<MainResult> {
  let stderr = '';
  const writeErr = process.stderr.write.bind(process.stderr);
  const exitCode = process.exitCode;
  process.stderr.write = (chunk: string | Uint8Array) => {
    stderr += chunk.toString();
    return true;
  };
  try {
    const code = await main(['node', 'coldstart', ...args]);
    return { code, stderr };
  } finally {
    process.stderr.write = writeErr;
    process.exitCode = exitCode;
  }
}
