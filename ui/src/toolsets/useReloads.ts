import { useEffect, useEffectEvent, useState } from "react";
import { listen } from "@tauri-apps/api/event";
import { api } from "../api";
import type { ReloadStatus } from "../bindings";

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
  const installed = useEffectEvent(() => onInstalled());

  useEffect(() => {
    let disposed = false;
    let unlisten: (() => void) | null = null;
    const keep = (s: ReloadStatus) => setReloads((all) => ({ ...all, [s.toolset_id]: s }));
    api.toolsetReloads().then(
      (all) => {
        if (!disposed) all.forEach(keep);
      },
      (e: unknown) => {
        if (!disposed) setLoadError(e);
      },
    );
    listen<ReloadStatus>("toolset-reloaded", (event) => {
      keep(event.payload);
      if (event.payload.error === null) installed();
    }).then(
      (fn) => {
        if (disposed) fn();
        else unlisten = fn;
      },
      (e: unknown) => setLoadError(e),
    );
    return () => {
      disposed = true;
      unlisten?.();
    };
  }, []);

  return { reloads, loadError };
}
