/**
 * coldstart's command line in this process: main() on an argument list, with what it wrote on stdout
 * and stderr captured and process.exitCode left as it was. For the in-process layers: only command
 * lines that start no process belong here (usage errors, --debug-mode runs with the fake deps).
 * Only the writes made from main()'s own asynchronous context are captured: the test runner reports
 * on this process's stdout meanwhile, and its lines pass through.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { main } from '../../metrics/cli/main.ts';

export interface MainResult {
  code: number;
  stdout: string;
  stderr: string;
}

const capture = new AsyncLocalStorage<{ stdout: string; stderr: string }>();

function intercept(stream: NodeJS.WriteStream, key: 'stdout' | 'stderr'): () => void {
  const write = stream.write.bind(stream) as (...args: unknown[]) => boolean;
  const own = Object.prototype.hasOwnProperty.call(stream, 'write');
  stream.write = (chunk: string | Uint8Array, ...rest: unknown[]): boolean => {
    const store = capture.getStore();
    if (!store) return write(chunk, ...rest);
    store[key] += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString();
    const done = rest.find((r): r is () => void => typeof r === 'function');
    if (done) queueMicrotask(done);
    return true;
  };
  return () => {
    if (own) stream.write = write;
    else delete (stream as Partial<NodeJS.WriteStream>).write;
  };
}

/** Calls may not overlap (process.exitCode is this process's). */
export async function mainInProcess(args: readonly string[]): Promise<MainResult> {
  const store = { stdout: '', stderr: '' };
  const restore = [intercept(process.stdout, 'stdout'), intercept(process.stderr, 'stderr')];
  const exitCode = process.exitCode;
  try {
    const code = await capture.run(store, () => main(['node', 'coldstart', ...args]));
    return { code, ...store };
  } finally {
    for (const undo of restore) undo();
    process.exitCode = exitCode;
  }
}
