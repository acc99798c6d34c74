/**
 * The sampler of every target: how a sample of it starts and is read. Which one a cell's target takes is
 * its object's `sampler` (core/kinds.ts); adding a way of sampling is one file in this folder and one line here.
 */
import { targetKind, type TargetKind } from '../../core/kinds.ts';
import { lambdaTarget } from './lambda.ts';
import { lambdaWebTarget } from './lambda-web.ts';
import { serverTarget } from './server.ts';
import type { Target } from './target.ts';

const SAMPLERS: Record<NonNullable<TargetKind['sampler']>, Target> = {
  server: serverTarget,
  lambda: lambdaTarget,
  'lambda-web': lambdaWebTarget,
};

/** The sampler a cell of target `name` runs on; undefined for a target that is only ever imported (aws-lambda). */
export function targetOf(name: string): Target | undefined {
  const { sampler } = targetKind(name);
  return sampler === undefined ? undefined : SAMPLERS[sampler];
}
