// Workspace manifests by id. A manifest never changes once recorded, so a
// read can be shared: a branch switch starts reading the target's manifest
// while the workspace moves (`prefetchManifest`), and the browser, shown
// the new node a moment later, finds it already read. A 10,000-file
// manifest is about a megabyte of JSON, so only the last few are kept.

import { api } from "../api";
import type { WorkspaceManifest } from "../bindings";

const KEEP = 4;
const cache = new Map<string, Promise<WorkspaceManifest>>();

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
  read.catch(() => cache.delete(key));
  while (cache.size > KEEP) cache.delete(cache.keys().next().value!);
  return read;
}

/** Starts reading a manifest that is about to be shown. */
export function prefetchManifest(chatId: string, manifestId: string): void {
  manifestOf(chatId, manifestId).catch(() => undefined); // the view reports errors when it reads
}

/** Forgets every manifest (tests). */
export function clearManifests(): void {
  cache.clear();
}
