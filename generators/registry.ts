/**
 * The registry: every file in generators/frameworks/ that default-exports a FrameworkGenerator.
 * Adding a framework is adding one file there; nothing else names frameworks.
 */
import { readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { FrameworkGenerator } from './types.ts';

export const PROJECT_ROOT = path.resolve(import.meta.dirname, '..');
const FRAMEWORKS_DIR = path.join(import.meta.dirname, 'frameworks');
const NAME = /^[a-z][a-z0-9-]*$/;

let cache: Promise<FrameworkGenerator[]> | undefined;

export function loadGenerators(): Promise<FrameworkGenerator[]> {
  cache ??= (async () => {
    const files = readdirSync(FRAMEWORKS_DIR)
      .filter((f) => f.endsWith('.ts') && !f.startsWith('_'))
      .sort();
    const generators: FrameworkGenerator[] = [];
    for (const file of files) {
      const mod = (await import(pathToFileURL(path.join(FRAMEWORKS_DIR, file)).href)) as { default?: FrameworkGenerator };
      const generator = mod.default;
      if (!generator || typeof generator.generate !== 'function' || !NAME.test(generator.name)) {
        throw new Error(`generators/frameworks/${file} does not default-export a FrameworkGenerator with a valid name`);
      }
      if (generators.some((g) => g.name === generator.name)) throw new Error(`two generators are named ${generator.name}`);
      generators.push(generator);
    }
    return generators;
  })();
  return cache;
}

/** Resolve packages the way a generated file does: from generated/, up to the project's node_modules. */
const requireFromGenerated = createRequire(path.join(PROJECT_ROOT, 'generated', 'index.js'));

export function resolvesPackage(pkg: string): boolean {
  try {
    requireFromGenerated.resolve(pkg);
    return true;
  } catch {
    return false;
  }
}

/** The first of a framework's packages that does not resolve, or undefined when all do. */
export function missingPackage(generator: FrameworkGenerator): string | undefined {
  return generator.packages.find((pkg) => !resolvesPackage(pkg));
}

/** The installed version of a package (read from its package.json), or undefined. */
export function installedVersion(pkg: string): string | undefined {
  for (const dir of requireFromGenerated.resolve.paths(pkg) ?? []) {
    try {
      return (requireFromGenerated(path.join(dir, pkg, 'package.json')) as { version?: string }).version;
    } catch {
      // not in this node_modules
    }
  }
  return undefined;
}

/** What a report shows as the framework's version: its main package's, or the runtime's for the floor. */
export function frameworkVersion(generator: FrameworkGenerator): string {
  const main = generator.packages[0];
  return main ? (installedVersion(main) ?? 'not installed') : 'runtime';
}
