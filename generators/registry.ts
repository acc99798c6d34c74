/**
 * The registry: per target, every file in generators/<target>/ (server/, lambda/) that
 * default-exports a FrameworkGenerator of that target; a derived target (lambda-web) takes another's
 * generators and rewrites their files (probe.ts webFunctionSource). Adding a framework is adding one file per
 * target there; nothing else names frameworks.
 */
import { readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { FrameworkGenerator } from './types.ts';
import { GENERATED_DIR, PROJECT_ROOT } from '../metrics/core/paths.ts';
import type { Target } from '../metrics/core/dimensions.ts';
import { targetKind } from '../metrics/core/kinds.ts';
import { webFunctionSource } from './probe.ts';

export { PROJECT_ROOT };
const NAME = /^[a-z][a-z0-9-]*$/;

const cache = new Map<Target, Promise<FrameworkGenerator[]>>();

/** The generators of one target (default `server`: the long-running HTTP servers), sorted by file name. */
export function loadGenerators(target: Target = 'server'): Promise<FrameworkGenerator[]> {
  let loaded = cache.get(target);
  if (!loaded) {
    loaded = loadFolder(target);
    cache.set(target, loaded);
  }
  return loaded;
}

async function loadFolder(target: Target): Promise<FrameworkGenerator[]> {
  // a target whose files are another's, rewritten (lambda-web: the servers, listening on AWS_LAMBDA_HTTP_ENDPOINT)
  const from = targetKind(target).derivedFrom;
  if (from !== undefined) return (await loadGenerators(from as Target)).map((g) => derivedGenerator(g, target));
  const dir = path.join(import.meta.dirname, target);
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.ts') && !f.startsWith('_'))
    .sort();
  const generators: FrameworkGenerator[] = [];
  for (const file of files) {
    const mod = (await import(pathToFileURL(path.join(dir, file)).href)) as { default?: FrameworkGenerator };
    const generator = mod.default;
    if (!generator || typeof generator.generate !== 'function' || !NAME.test(generator.name) || generator.target !== target) {
      throw new Error(`generators/${target}/${file} does not default-export a ${target} FrameworkGenerator with a valid name`);
    }
    if (generators.some((g) => g.name === generator.name)) throw new Error(`two ${target} generators are named ${generator.name}`);
    generators.push(generator);
  }
  return generators;
}

/** A server generator as a Web Function's: the same framework and packages, the file with the Web Function's probe address. */
function derivedGenerator(generator: FrameworkGenerator, target: Target): FrameworkGenerator {
  return {
    ...generator,
    target,
    generate: async (input) => webFunctionSource(await generator.generate(input)),
  };
}

/** Resolve packages the way a generated file does: from generated/, up to the project's node_modules. */
const requireFromGenerated = createRequire(path.join(GENERATED_DIR, 'index.js'));

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
  return installedManifest(pkg)?.version;
}

/** The commit an installed package was built from, as its package.json's `gitHead` records it (npm and mion's build set it). */
export function installedCommit(pkg: string): string | undefined {
  const head = installedManifest(pkg)?.gitHead;
  return typeof head === 'string' && /^[0-9a-f]{7,40}$/.test(head) ? head : undefined;
}

function installedManifest(pkg: string): { version?: string; gitHead?: unknown } | undefined {
  for (const dir of requireFromGenerated.resolve.paths(pkg) ?? []) {
    try {
      return requireFromGenerated(path.join(dir, pkg, 'package.json')) as { version?: string; gitHead?: unknown };
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

/** The npm package a module specifier belongs to: `@scope/name` or `name`, without its subpath. */
export function packageOf(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}

/**
 * What a report shows as a Lambda file's adapter: the module with its package's installed version
 * (`serverless-http 4.0.0`, `hono/aws-lambda (hono 4.13.19)`), `none` for the floor, or undefined
 * for a generator without an adapter (every server).
 */
export function adapterLabel(generator: FrameworkGenerator): string | undefined {
  const adapter = generator.adapter;
  if (!adapter || adapter === 'none') return adapter;
  const pkg = packageOf(adapter);
  const version = installedVersion(pkg) ?? 'not installed';
  return adapter === pkg ? `${adapter} ${version}` : `${adapter} (${pkg} ${version})`;
}
