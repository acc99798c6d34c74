/**
 * The environment a measured child gets: PATH, HOME and NODE_ENV=production, nothing else. The
 * parent's NODE_OPTIONS would change what is measured, and NODE_EXTRA_CA_CERTS alone adds ~100 ms
 * to every node start on the project's machines.
 */
export const PASSED_ENV = ['PATH', 'HOME'] as const;
export const CHILD_NODE_ENV = 'production';

export interface ChildEnvironment {
  env: NodeJS.ProcessEnv;
  /** names (never values) of the parent's variables the child does not get */
  dropped: string[];
}

export function childEnvironment(parent: NodeJS.ProcessEnv = process.env, extra: Record<string, string> = {}): ChildEnvironment {
  const env: NodeJS.ProcessEnv = { NODE_ENV: CHILD_NODE_ENV };
  for (const name of PASSED_ENV) {
    const value = parent[name];
    if (value !== undefined) env[name] = value;
  }
  Object.assign(env, extra);
  const dropped = Object.keys(parent)
    .filter((name) => !(name in env) && name !== 'NODE_ENV')
    .sort();
  return { env, dropped };
}
