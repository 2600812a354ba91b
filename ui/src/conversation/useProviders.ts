// The providers a chat can talk to, their presets' names, and the models
// each offers (asked once per provider and window: *Test connection* lists
// them), for the model switcher, the empty chat and the errors.

import { useEffect, useState } from "react";
import { api } from "../api";
import type { Preset, ProviderRecord } from "../bindings";
import { useLoad, type Load } from "../lib/useLoad";

export type ProviderInfo = {
  load: Load<{ providers: ProviderRecord[]; presets: Preset[] }>;
  providers: ProviderRecord[];
  presets: Preset[];
  /** Models by provider id (the default model until the list arrives). */
  models: Record<string, string[]>;
  reload: () => void;
};

const modelLists = new Map<string, Promise<string[]>>();

/** The models a provider offers; [] when it cannot say (it is down, the key is wrong). */
function modelsOf(id: string): Promise<string[]> {
  let p = modelLists.get(id);
  if (p === undefined) {
    p = api.testProvider(id).then(
      (t) => {
        // A provider that could not say (down, a wrong key) is asked again next time.
        if (!t.ok || t.models.length === 0) modelLists.delete(id);
        return t.ok ? t.models : [];
      },
      () => {
        modelLists.delete(id);
        return [];
      },
    );
    modelLists.set(id, p);
  }
  return p;
}

/** Forget what providers offered (one was added or its key changed). */
export function forgetModels() {
  modelLists.clear();
}

/** `version`: a new value reads the providers again. */
export function useProviders(version: number | string = 0): ProviderInfo {
  const [load, reload] = useLoad(async () => {
    const [providers, presets] = await Promise.all([api.listProviders(), api.providerPresets()]);
    return { providers, presets };
  }, `providers-${version}`);
  const providers = load.data?.providers ?? [];
  const [offered, setOffered] = useState<Record<string, string[]>>({});
  // Each read of the providers (the tab shown again) asks those that could not say before.
  const listed = load.data?.providers;
  useEffect(() => {
    let live = true;
    for (const { id } of listed ?? [])
      void modelsOf(id).then((m) => {
        if (live) setOffered((o) => (o[id] === m ? o : { ...o, [id]: m }));
      });
    return () => {
      live = false;
    };
  }, [listed]);
  const models: Record<string, string[]> = {};
  for (const p of providers) {
    const listed = offered[p.id] ?? [];
    const first = p.default_model !== null && !listed.includes(p.default_model) ? [p.default_model] : [];
    models[p.id] = [...first, ...listed];
  }
  return { load, providers, presets: load.data?.presets ?? [], models, reload };
}

/** "Ollama", "OpenAI": a provider as a person calls it. */
export function providerTitle(p: ProviderRecord | undefined, presets: Preset[], id: string | null): string {
  const preset = presets.find((x) => x.name === (p?.preset ?? id));
  return preset?.title ?? p?.id ?? id ?? "the provider";
}

/** `localhost:11434` of `http://localhost:11434/v1`. */
export function hostOf(baseUrl: string): string {
  try {
    return new URL(baseUrl).host;
  } catch {
    return baseUrl;
  }
}
