import { useEffect, useEffectEvent, useState } from "react";
import { getCurrentWebview } from "@tauri-apps/api/webview";

/**
 * Files or folders dropped on the window (Tauri delivers real paths, which
 * the Rust side validates again). Returns whether something is being dragged
 * over the window, for a drop highlight. Listens only while `active`.
 */
export function useBundleDrop(active: boolean, onDrop: (paths: string[]) => void): boolean {
  const [over, setOver] = useState(false);
  // The latest onDrop, without listening anew when it changes.
  const dropped = useEffectEvent((paths: string[]) => onDrop(paths));

  useEffect(() => {
    if (!active) return;
    let disposed = false;
    let unlisten: (() => void) | null = null;
    let webview;
    try {
      webview = getCurrentWebview();
    } catch {
      return; // not running inside Tauri (a plain browser): no file drops
    }
    webview
      .onDragDropEvent((event) => {
        const p = event.payload;
        if (p.type === "enter" || p.type === "over") setOver(true);
        else if (p.type === "leave") setOver(false);
        else {
          setOver(false);
          if (p.paths.length > 0) dropped(p.paths);
        }
      })
      .then(
        (fn) => {
          if (disposed) fn();
          else unlisten = fn;
        },
        () => undefined,
      );
    return () => {
      disposed = true;
      unlisten?.();
      setOver(false); // no drag is seen any more, so none is over the window
    };
  }, [active]);

  return active && over;
}
