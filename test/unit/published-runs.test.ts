/**
 * Every committed run folder under results/published/ is reproducible: its report, rebuilt from its
 * samples.jsonl and meta.json alone (`npm run report -- FOLDER`), gives every committed report file
 * byte for byte, and the folder holds no report file the report would no longer write. A change to the
 * report code that changes a published page fails here: re-report the folders (and say why in the commit).
 * And no committed file there names a folder of the machine that ran it (meta.json records them from
 * `<project>/…`): no path under /work/, /tmp/, /root/ or /home/.
 */
import assert from 'node:assert/strict';
import { cpSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { publishedFolders } from '../../metrics/pipeline/results-page.ts';
import { writeReport } from '../../metrics/report/write.ts';
import { ROOT, tempDir } from '../support/in-process.ts';

/** What a run folder holds that its report reads rather than writes. */
const INPUTS = new Set(['samples.jsonl', 'meta.json', 'hyperfine.json', 'attribution.json']);

const folders = publishedFolders(path.join(ROOT, 'results'));

describe('results/published: each run folder re-reports to the same bytes', () => {
  it('has published runs', () => assert.ok(folders.length > 0, 'results/published/ holds no run folder'));

  for (const { name, folder } of folders) {
    it(name, async () => {
      const copy = path.join(tempDir('coldstart-published-'), name);
      cpSync(folder, copy, { recursive: true });
      const { written } = await writeReport(copy);
      const committed = readdirSync(folder);
      for (const file of written) {
        assert.ok(committed.includes(file), `${name}/${file} is written by the report but not committed: run npm run report -- ${folder}`);
        assert.ok(
          readFileSync(path.join(copy, file)).equals(readFileSync(path.join(folder, file))),
          `${name}/${file} differs from what npm run report writes from its samples: re-report it`,
        );
      }
      const stale = committed.filter((file) => !INPUTS.has(file) && !written.includes(file));
      assert.deepEqual(stale, [], `${name}: files the report no longer writes`);
    });
  }
});

/** A path of the machine: /work/…, /tmp/…, /root/… or /home/… where a path starts (not inside a URL's or another path's). */
const MACHINE_PATH = /(?<![\w.~-])\/(?:work|tmp|root|home)\//;

describe('results/published: no committed file names a folder of the machine', () => {
  const published = path.join(ROOT, 'results', 'published');
  const files = readdirSync(published, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.join(entry.parentPath, entry.name));

  it('has files', () => assert.ok(files.length > 0));

  for (const file of files) {
    it(path.relative(published, file), () => {
      const lines = readFileSync(file, 'utf8').split('\n');
      const found = lines.findIndex((line) => MACHINE_PATH.test(line));
      assert.equal(found, -1, `line ${found + 1} names a path of the machine: ${lines[found]?.slice(0, 300)}`);
    });
  }
});
