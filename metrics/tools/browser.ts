/**
 * The browser that checks and pictures report.html: Debian's chromium (apt-get install chromium), driven
 * by playwright-core, which downloads no browser of its own. Shared by the browser test
 * (test/e2e/report-html.test.ts) and the README's screenshot (screenshot.ts).
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { BrowserType } from 'playwright-core';

/** CHROMIUM when it is set (only it), else Debian's chromium or the first `chromium` on PATH. */
export function findChromium(): string | undefined {
  const chosen = process.env.CHROMIUM;
  if (chosen) return existsSync(chosen) ? chosen : undefined;
  const candidates = ['/usr/bin/chromium', ...(process.env.PATH ?? '').split(path.delimiter).map((dir) => path.join(dir, 'chromium'))];
  return candidates.find((file) => existsSync(file));
}

/** playwright-core's chromium driver, or undefined when the package is not installed. */
export async function loadChromium(): Promise<BrowserType | undefined> {
  try {
    return (await import('playwright-core')).chromium;
  } catch {
    return undefined;
  }
}

/** Flags for a headless chromium in a container: no sandbox (root), no GPU, no small /dev/shm. */
export const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'];
