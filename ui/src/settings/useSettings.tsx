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
