/**
 * No folder of src/ holds more than twenty source files directly (test files aside): a folder that
 * grows past that holds several concepts and is split into subfolders by concept, as src/pipeline/
 * and src/text-tool-calls/ are. A folder of peers (one file per plugin, format, migration, route
 * area or repository) may hold any number of them, because adding one more peer adds no concept;
 * its other files still count, so it cannot become a place for everything else.
 */
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const SOURCE_ROOT = path.resolve(import.meta.dirname, '..', 'src');
const MOST_FILES_IN_A_FOLDER = 20;

/** A folder whose files matching `peers` do not count: each is one of a kind, and the folder grows by adding one. */
interface PeerFolder {
  /** Relative to src/. */
  folder: string;
  peers: RegExp;
  reason: string;
}

const PEER_FOLDERS: PeerFolder[] = [
  { folder: 'tools', peers: /\.ts$/, reason: 'one file per tool plugin, discovered by folder' },
  { folder: 'prompt-processors', peers: /\.ts$/, reason: 'one file per prompt processor plugin, discovered by folder' },
  { folder: 'connectors', peers: /\.ts$/, reason: 'one file per connector plugin, discovered by folder' },
  { folder: 'text-tool-calls/formats', peers: /-format\.ts$/, reason: 'one file per format a model family writes calls in' },
  { folder: 'store', peers: /-repository\.ts$/, reason: 'one repository per table or group of tables' },
  { folder: 'store/migrations', peers: /^\d{4}-[a-z0-9-]+\.ts$/, reason: 'one file per migration, applied in order' },
  { folder: 'http/routes', peers: /-routes\.ts$/, reason: 'one route file per area of the API' },
];

interface CrowdedFolder {
  folder: string;
  files: number;
}

/** The source files of one folder that count against the limit: not tests, not the folder's peers. */
function countedFiles(fileNames: string[], peers: RegExp | undefined): number {
  return fileNames.filter((name) => name.endsWith('.ts') && !name.endsWith('.test.ts') && !peers?.test(name)).length;
}

/** Every folder under `root` (itself included) holding more than `limit` counted files, named relative to `root`. */
async function crowdedFolders(root: string, peerFolders: PeerFolder[], limit: number): Promise<CrowdedFolder[]> {
  const peersByFolder = new Map(peerFolders.map((peer) => [peer.folder, peer.peers]));
  const crowded: CrowdedFolder[] = [];
  const visit = async (folder: string): Promise<void> => {
    const entries = await readdir(path.join(root, folder), { withFileTypes: true });
    const fileNames = entries.filter((entry) => entry.isFile()).map((entry) => entry.name);
    const files = countedFiles(fileNames, peersByFolder.get(folder));
    if (files > limit) crowded.push({ folder: folder === '' ? '.' : folder, files });
    for (const entry of entries) {
      if (entry.isDirectory() && entry.name !== '__fixtures__') await visit(path.posix.join(folder, entry.name));
    }
  };
  await visit('');
  return crowded;
}

describe('the folders of src/', () => {
  it(`hold at most ${MOST_FILES_IN_A_FOLDER} source files each, besides their peers`, async () => {
    expect(await crowdedFolders(SOURCE_ROOT, PEER_FOLDERS, MOST_FILES_IN_A_FOLDER)).toEqual([]);
  });

  it('name only existing folders as folders of peers, each with its reason', async () => {
    for (const peer of PEER_FOLDERS) {
      const entries = await readdir(path.join(SOURCE_ROOT, peer.folder));
      expect(entries.length, `src/${peer.folder} exists and holds files`).toBeGreaterThan(0);
      expect(peer.reason.length, `src/${peer.folder} says why it is a folder of peers`).toBeGreaterThan(10);
    }
  });
});

describe('the folder size check', () => {
  let workspace: string;

  beforeAll(async () => {
    workspace = await mkdtemp(path.join(tmpdir(), 'merino-folder-size-'));
  });

  afterAll(async () => {
    await rm(workspace, { recursive: true, force: true });
  });

  /** Makes a tree of empty files under a fresh folder of the workspace and returns its path. */
  async function tree(name: string, files: string[]): Promise<string> {
    const root = path.join(workspace, name);
    for (const file of files) {
      await mkdir(path.dirname(path.join(root, file)), { recursive: true });
      await writeFile(path.join(root, file), '');
    }
    return root;
  }

  const numbered = (folder: string, count: number, suffix = '.ts'): string[] =>
    Array.from({ length: count }, (_, index) => `${folder}/file-${index}${suffix}`);

  it('passes a folder of twenty files and fails one of twenty-one, naming it and its count', async () => {
    const root = await tree('twenty-one', [...numbered('full', 20), ...numbered('nested/crowded', 21)]);
    expect(await crowdedFolders(root, [], 20)).toEqual([{ folder: 'nested/crowded', files: 21 }]);
  });

  it('counts neither test files nor files that are not TypeScript', async () => {
    const root = await tree('tests-aside', [...numbered('area', 20), ...numbered('area', 5, '.test.ts'), 'area/notes.md']);
    expect(await crowdedFolders(root, [], 20)).toEqual([]);
  });

  it('counts the files of a folder of peers that are not its peers', async () => {
    const peers: PeerFolder[] = [{ folder: 'formats', peers: /-format\.ts$/, reason: 'one file per format' }];
    const fewHelpers = await tree('peers-and-few-helpers', [...numbered('formats', 30, '-format.ts'), ...numbered('formats', 3)]);
    expect(await crowdedFolders(fewHelpers, peers, 20)).toEqual([]);
    const manyHelpers = await tree('peers-and-many-helpers', [...numbered('formats', 5, '-format.ts'), ...numbered('formats', 21)]);
    expect(await crowdedFolders(manyHelpers, peers, 20)).toEqual([{ folder: 'formats', files: 21 }]);
  });

  it('fails the top folder itself when it is crowded', async () => {
    const root = await tree('crowded-top', numbered('.', 21));
    expect(await crowdedFolders(root, [], 20)).toEqual([{ folder: '.', files: 21 }]);
  });
});
