import { useEffect, useRef, useState } from "react";
import { getCurrentWebview } from "@tauri-apps/api/webview";

/**
 * Files or folders dropped on the window (Tauri delivers real paths, which
 * the Rust side validates again). Returns whether something is being dragged
 * over the window, for a drop highlight. Listens only while `active`.
 */
export function useBundleDrop(active: boolean, onDrop: (paths: string[]) => void): boolean {
  const [over, setOver] = useState(false);
  const onDropRef = useRef(onDrop);
  onDropRef.current = onDrop;

  useEffect(() => {
    if (!active) {
      setOver(false);
      return;
    }
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
          if (p.paths.length > 0) onDropRef.current(p.paths);
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
    };
  }, [active]);

  return over;
}
