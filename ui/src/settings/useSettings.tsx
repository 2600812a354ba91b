import { createContext, useCallback, useContext, useMemo, type ReactNode } from "react";
import { api } from "../api";
import type { SettingsView } from "../bindings";
import { useLoad, type Load } from "../lib/useLoad";

export type SettingsApi = {
  load: Load<SettingsView>;
  /** Saves an origin; resolves with the new view, rejects with `{kind, message}`. */
  allowFrameOrigin: (origin: string) => Promise<SettingsView>;
  forbidFrameOrigin: (origin: string) => Promise<SettingsView>;
  reload: () => void;
};

const SettingsContext = createContext<SettingsApi | null>(null);

/** Loads the settings once for the whole app; every view shares them. */
export function SettingsProvider({ children }: { children: ReactNode }) {
  const [load, reload, set] = useLoad<SettingsView>(() => api.getSettings(), "settings");
  const allowFrameOrigin = useCallback(
    async (origin: string) => {
      const view = await api.allowFrameOrigin(origin);
      set(view);
      return view;
    },
    [set],
  );
  const forbidFrameOrigin = useCallback(
    async (origin: string) => {
      const view = await api.forbidFrameOrigin(origin);
      set(view);
      return view;
    },
    [set],
  );
  const value = useMemo(
    () => ({ load, allowFrameOrigin, forbidFrameOrigin, reload }),
    [load, allowFrameOrigin, forbidFrameOrigin, reload],
  );
  return <SettingsContext.Provider value={value}>{children}</SettingsContext.Provider>;
}

/** The settings every view shares (inside `SettingsProvider`). */
export function useSettings(): SettingsApi {
  const shared = useContext(SettingsContext);
  if (shared === null) throw new Error("useSettings needs a SettingsProvider");
  return shared;
}

/** What a frame renderer may do with an origin. */
export type FrameAccess = "loopback" | "allowed" | "needs_restart" | "not_allowed" | "invalid";

const LOOPBACK = new Set(["localhost", "127.0.0.1", "[::1]"]);

/** The origin of an http(s) URL as the backend stores it, or null. */
export function httpOrigin(raw: string): string | null {
  try {
    const url = new URL(raw);
    return url.protocol === "http:" || url.protocol === "https:" ? url.origin : null;
  } catch {
    return null;
  }
}

/** Only http(s) pages on this computer are framed without asking. */
export function isLoopbackUrl(raw: string): boolean {
  try {
    const url = new URL(raw);
    return (url.protocol === "http:" || url.protocol === "https:") && LOOPBACK.has(url.hostname);
  } catch {
    return false;
  }
}

export function frameAccess(url: string, view: SettingsView | null): FrameAccess {
  if (isLoopbackUrl(url)) return "loopback";
  const origin = httpOrigin(url);
  if (origin === null) return "invalid";
  if (view === null) return "not_allowed";
  if (view.frame_origins_in_effect.includes(origin)) return "allowed";
  if (view.saved.frame_origins.includes(origin)) return "needs_restart";
  return "not_allowed";
}
