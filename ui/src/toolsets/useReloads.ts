import { useEffect, useState } from "react";
import { api } from "../api";
import type { ReloadStatus } from "../bindings";
import { useEvent } from "../lib/useEvent";

/**
 * The hot reload of local toolsets, as the app's watches report it: the last
 * outcome per toolset id (loaded once, then followed through the
 * `toolset-reloaded` event), and `onInstalled` after each good reload (the
 * list shows the new version; tools may have changed).
 */
export function useReloads(onInstalled: () => void): {
  reloads: Record<string, ReloadStatus>;
  loadError: unknown;
} {
  const [reloads, setReloads] = useState<Record<string, ReloadStatus>>({});
  const [loadError, setLoadError] = useState<unknown>(null);

  const keep = (s: ReloadStatus) => setReloads((all) => ({ ...all, [s.toolset_id]: s }));
  useEffect(() => {
    let disposed = false;
    api.toolsetReloads().then(
      (all) => {
        if (!disposed) all.forEach(keep);
      },
      (e: unknown) => {
        if (!disposed) setLoadError(e);
      },
    );
    return () => {
      disposed = true;
    };
  }, []);
  useEvent<ReloadStatus>(
    "toolset-reloaded",
    (s) => {
      keep(s);
      if (s.error === null) onInstalled();
    },
    setLoadError,
  );

  return { reloads, loadError };
}
