// Workspace manifests by id. A manifest never changes once recorded, so a
// read can be shared: a branch switch starts reading the target's manifest
// while the workspace moves (`prefetchManifest`), and the browser, shown
// the new node a moment later, finds it already read. A 10,000-file
// manifest is about a megabyte of JSON, so only the last few are kept.

import { api } from "../api";
import type { WorkspaceManifest } from "../bindings";
import { buildTree, type Tree } from "./fileTree";

const KEEP = 4;
const cache = new Map<string, Promise<WorkspaceManifest>>();
// The reads that have arrived, for views that can show one at once.
const arrived = new Map<string, WorkspaceManifest>();

/** The manifest `manifestId` of a chat, read once (a failed read is not kept). */
export function manifestOf(chatId: string, manifestId: string): Promise<WorkspaceManifest> {
  const key = `${chatId}:${manifestId}`;
  const hit = cache.get(key);
  if (hit !== undefined) {
    // Most recently used last.
    cache.delete(key);
    cache.set(key, hit);
    return hit;
  }
  const read = api.getWorkspaceManifest(chatId, manifestId);
  cache.set(key, read);
  read.then(
    (m) => {
      if (cache.get(key) === read) arrived.set(key, m);
    },
    () => cache.delete(key),
  );
  while (cache.size > KEEP) {
    const oldest = cache.keys().next().value!;
    cache.delete(oldest);
    arrived.delete(oldest);
  }
  return read;
}

/**
 * The manifest if its read has already arrived (no waiting, no new read):
 * a view shown right after a switch renders it in the same frame.
 */
export function arrivedManifest(chatId: string, manifestId: string): WorkspaceManifest | null {
  return arrived.get(`${chatId}:${manifestId}`) ?? null;
}

// The file tree of each manifest object, built once: switching back and
// forth between versions (the sibling arrows) shows a tree already built.
// Kept as long as the manifest object is (the cache above, or a view).
const trees = new WeakMap<WorkspaceManifest, Tree>();

/** The manifest's files as a tree (see `buildTree`), built once per manifest read. */
export function treeOf(manifest: WorkspaceManifest): Tree {
  let tree = trees.get(manifest);
  if (tree === undefined) {
    tree = buildTree(manifest.files, manifest.changes);
    trees.set(manifest, tree);
  }
  return tree;
}

/** Starts reading a manifest that is about to be shown. */
export function prefetchManifest(chatId: string, manifestId: string): void {
  manifestOf(chatId, manifestId).catch(() => undefined); // the view reports errors when it reads
}

/** Forgets every manifest (tests). */
export function clearManifests(): void {
  cache.clear();
  arrived.clear();
}
