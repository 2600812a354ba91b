// Parts of the UI the first screen does not draw (CodeMirror, markdown-it
// and DOMPurify) are chunks of their own, so the script the window parses
// before its first paint is smaller. Each is loaded when a view first needs
// it, or in idle time once the first screen is drawn, whichever comes first;
// a view shows its plain text until then (see CodeEditor, Markdown).
import { useEffect, useSyncExternalStore } from "react";

export type LazyModule<T> = {
  /** The module once loaded (null before). */
  now: () => T | null;
  /** Loads it (once; a failed load is tried again on the next call). */
  load: () => Promise<T>;
  subscribe: (onLoaded: () => void) => () => void;
};

const preloads: Array<() => Promise<unknown>> = [];

/** A module loaded with `importer` on first use; with `preload`, also after the first paint. */
export function lazyModule<T>(importer: () => Promise<T>, { preload = true } = {}): LazyModule<T> {
  let value: T | null = null;
  let loading: Promise<T> | null = null;
  const listeners = new Set<() => void>();
  const load = () => {
    loading ??= importer().then(
      (m) => {
        value = m;
        for (const l of [...listeners]) l();
        return m;
      },
      (e: unknown) => {
        loading = null;
        throw e;
      },
    );
    return loading;
  };
  if (preload) preloads.push(load);
  return {
    now: () => value,
    load,
    subscribe: (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
  };
}

/** The module, or null while it loads (the component renders again once it is there). */
export function useLazyModule<T>(m: LazyModule<T>): T | null {
  const value = useSyncExternalStore(m.subscribe, m.now);
  // Asked for by a view: load it now, not in idle time.
  useEffect(() => {
    if (m.now() === null) m.load().catch(() => undefined); // its plain text stays
  }, [m]);
  return value;
}

/** Loads every preloaded module now (tests: views then draw as they do once the app has been idle). */
export async function loadLazyModules(): Promise<void> {
  await Promise.all(preloads.map((load) => load()));
}

type IdleWindow = { requestIdleCallback?: (run: () => void, options?: { timeout: number }) => number };

/**
 * Loads every preloaded module, one after the other, each when the page is
 * idle: after the first paint, what a tool card, a file or an answer needs
 * is there before it is asked for, without competing with the first screen.
 */
export function preloadLazyModules(): void {
  const idle = (run: () => void) => {
    // A page torn down meanwhile (a test's window closed) has no idle time
    // left: the chain stops rather than throw where nothing catches it.
    if (typeof window === "undefined") return;
    const w = window as IdleWindow;
    if (typeof w.requestIdleCallback === "function") w.requestIdleCallback(run, { timeout: 1000 });
    else setTimeout(run, 50);
  };
  const next = (i: number) => {
    const load = preloads[i];
    if (load === undefined) return;
    idle(() => {
      load().then(
        () => next(i + 1),
        () => next(i + 1),
      );
    });
  };
  next(0);
}
