/**
 * The AWS region of lambda:run and lambda:clean, taken as the AWS CLI takes it: --region, else AWS_REGION,
 * else AWS_DEFAULT_REGION, else the `region` of the profile AWS_PROFILE names (`default` when unset) in the
 * shared config file (AWS_CONFIG_FILE, else ~/.aws/config: `[default]`, `[profile NAME]`). Never a default
 * of ours: without any of them, one line and exit 2. The config file is read bounded and parsed with `ini`
 * (npm's own INI parser); its credentials are never read (they are the SDK's, through its default chain).
 */
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse } from 'ini';
import { UsageError } from '../core/errors.ts';
import { readTextBounded } from '../store/input-files.ts';

const REGION = /^[a-z]{2}(-[a-z]+)+-\d+$/;
/** A config file of profiles is a few KiB; more is not one. */
const MAX_CONFIG_BYTES = 1 << 20;

export function parseRegion(text: string, name = '--region'): string {
  if (!REGION.test(text)) throw new UsageError(`${name} must be an AWS region such as us-east-1, got ${JSON.stringify(text).slice(0, 40)}`);
  return text;
}

/** The region of `profile` in the shared config file, or undefined (no file, no such profile, no region in it). */
function profileRegion(env: NodeJS.ProcessEnv, home: string): { region: string; where: string } | undefined {
  const file = env.AWS_CONFIG_FILE || path.join(home, '.aws', 'config');
  if (!existsSync(file)) return undefined;
  const profile = env.AWS_PROFILE || 'default';
  const sections = parse(readTextBounded(file, MAX_CONFIG_BYTES, 'the AWS config file')) as Record<string, unknown>;
  const section = (profile === 'default' ? (sections.default ?? sections['profile default']) : sections[`profile ${profile}`]) as
    Record<string, unknown> | undefined;
  const region = section?.region;
  return typeof region === 'string' && region ? { region, where: `the region of profile ${profile} in ${file}` } : undefined;
}

export function regionOf(option: string | undefined, env: NodeJS.ProcessEnv, home = os.homedir()): string {
  if (option !== undefined) return option;
  for (const name of ['AWS_REGION', 'AWS_DEFAULT_REGION'] as const) {
    const value = env[name];
    if (value) return parseRegion(value, name);
  }
  const fromProfile = profileRegion(env, home);
  if (fromProfile) return parseRegion(fromProfile.region, fromProfile.where);
  throw new UsageError(
    "--region is required (or AWS_REGION or AWS_DEFAULT_REGION, or a region in the AWS_PROFILE's profile of ~/.aws/config): " +
      'the AWS region, such as eu-west-1',
  );
}
