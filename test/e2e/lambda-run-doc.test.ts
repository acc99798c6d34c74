/**
 * docs/guide/lambda-run.md's examples run as dry runs without credentials (issue 51): in an app's folder
 * with no AWS credentials, profile or config file, its `lambda:package` line packages and each of its
 * `lambda:run` lines, `--dry-run` added where it has none, prints its plan and cost and exits 0 (before,
 * the doc's own dry run exited 2 on `required option '-o, --out <dir>'`). The region is taken as the AWS
 * CLI takes it: --region, else AWS_REGION, else AWS_DEFAULT_REGION, and without any of them one line, exit 2.
 */
import assert from 'node:assert/strict';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { PROJECT_ROOT } from '../../metrics/core/paths.ts';
import { appFolder, coldstartArgs, commandLines } from '../support/doc-commands.ts';
import { mainInProcess } from '../support/main-in-process.ts';

const DOC = path.join(PROJECT_ROOT, 'docs', 'guide', 'lambda-run.md');
const AWS_NAMES = [
  'AWS_ACCESS_KEY_ID',
  'AWS_SECRET_ACCESS_KEY',
  'AWS_SESSION_TOKEN',
  'AWS_PROFILE',
  'AWS_REGION',
  'AWS_DEFAULT_REGION',
  'AWS_CONFIG_FILE',
  'AWS_SHARED_CREDENTIALS_FILE',
];

describe("lambda-run.md's examples as dry runs, without credentials", () => {
  const env = { ...process.env };
  const cwd = process.cwd();
  let app: string;
  before(() => {
    app = appFolder();
    process.env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !AWS_NAMES.includes(name)));
    // no ~/.aws of this machine either
    process.env.AWS_CONFIG_FILE = path.join(app, 'no-config');
    process.env.AWS_SHARED_CREDENTIALS_FILE = path.join(app, 'no-credentials');
    process.chdir(app);
  });
  after(() => {
    process.chdir(cwd);
    process.env = env;
  });

  const lines = commandLines(readFileSync(DOC, 'utf8'))
    .map((c) => ({ ...c, args: coldstartArgs(c.command) }))
    .filter((c): c is typeof c & { args: string[] } => c.args?.[0] === 'lambda-package' || c.args?.[0] === 'lambda-run');

  it('the package line packages, and every lambda:run line plans its run and cost: exit 0', async () => {
    assert.ok(lines.filter((l) => l.args[0] === 'lambda-run').length >= 4, 'the doc has its lambda:run lines');
    for (const { line, args } of lines) {
      if (args.some((a) => /[A-Z]{3,}|…|\[/.test(a))) continue; // a synopsis (ARN, FILE…), not a command
      const dry = args[0] === 'lambda-run' && !args.includes('--dry-run') ? [...args, '--dry-run'] : args;
      const result = await mainInProcess(dry);
      assert.equal(result.code, 0, `lambda-run.md:${line}: ${dry.join(' ')}\n${result.stderr}`);
      if (args[0] === 'lambda-run') assert.match(result.stdout, /estimated cost: \$/, `lambda-run.md:${line}`);
    }
  });

  it('the region from AWS_REGION, else AWS_DEFAULT_REGION; without either (nor --region), one line, exit 2', async () => {
    const args = ['lambda-run', 'pkg', '--create-role', '--dry-run'];
    process.env.AWS_DEFAULT_REGION = 'eu-west-1';
    const byDefault = await mainInProcess(args);
    assert.equal(byDefault.code, 0, byDefault.stderr);
    process.env.AWS_REGION = 'eu-central-1';
    const byRegion = await mainInProcess(args);
    assert.equal(byRegion.code, 0, byRegion.stderr);
    process.env.AWS_REGION = 'not a region';
    const bad = await mainInProcess(args);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /^coldstart: AWS_REGION must be an AWS region such as us-east-1, got "not a region"\n$/);
    delete process.env.AWS_REGION;
    delete process.env.AWS_DEFAULT_REGION;
    const none = await mainInProcess(args);
    assert.equal(none.code, 2);
    assert.match(none.stderr, /^coldstart: --region is required \(or AWS_REGION or AWS_DEFAULT_REGION, or a region in the AWS_PROFILE/);
  });

  it("else the region of AWS_PROFILE's profile (or [default]) in the config file, as the AWS CLI takes it", async () => {
    const args = ['lambda-run', 'pkg', '--create-role', '--dry-run'];
    const config = process.env.AWS_CONFIG_FILE!;
    writeFileSync(config, '[default]\nregion = eu-north-1\n\n[profile dev]\nregion=ap-southeast-2\n[profile bare]\noutput = json\n');
    try {
      const byDefault = await mainInProcess(args);
      assert.equal(byDefault.code, 0, byDefault.stderr);
      assert.match(byDefault.stdout, /in eu-north-1:/);
      process.env.AWS_PROFILE = 'dev';
      const byProfile = await mainInProcess(args);
      assert.match(byProfile.stdout, /in ap-southeast-2:/);
      process.env.AWS_REGION = 'eu-central-1'; // the environment before the profile
      assert.match((await mainInProcess(args)).stdout, /in eu-central-1:/);
      delete process.env.AWS_REGION;
      process.env.AWS_PROFILE = 'bare';
      const bare = await mainInProcess(args);
      assert.equal(bare.code, 2);
      assert.match(bare.stderr, /--region is required/);
      writeFileSync(config, '[profile dev]\nregion = $(id)\u001b]0;x\n');
      process.env.AWS_PROFILE = 'dev';
      const hostile = await mainInProcess(args);
      assert.equal(hostile.code, 2);
      assert.match(hostile.stderr, /^coldstart: the region of profile dev in .* must be an AWS region such as us-east-1, got "\$\(id\)/);
      assert.equal(hostile.stderr.includes('\u001b'), false, 'escaped for the terminal');
    } finally {
      delete process.env.AWS_PROFILE;
      rmSync(config, { force: true });
    }
  });
});
