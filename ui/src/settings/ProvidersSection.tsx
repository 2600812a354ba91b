import { useEffect, useRef, useState, type FormEvent } from "react";
import { api } from "../api";
import type { ConnectionTest, Detected, Preset, ProviderRecord } from "../bindings";
import { Badge, ErrorBox, Spinner } from "../components/feedback";
import { forgetModels } from "../conversation/useProviders";
import { useLoad } from "../lib/useLoad";
import { ProviderEditor } from "./ProviderEditor";
import { keyText } from "./providerText";

/** The id a new provider of this preset gets: the preset's name, numbered if taken. */
function freeId(base: string, taken: ProviderRecord[]): string {
  const ids = new Set(taken.map((p) => p.id));
  if (!ids.has(base)) return base;
  let n = 2;
  while (ids.has(`${base}-${n}`)) n += 1;
  return `${base}-${n}`;
}

/**
 * A test's answer: connected with the models the provider lists — one of
 * them can be made the default right there — or what failed, in words.
 */
function TestResult({
  t,
  provider,
  busy,
  onDefault,
}: {
  t: ConnectionTest;
  provider: ProviderRecord;
  busy: boolean;
  onDefault: (model: string | null) => void;
}) {
  if (t.ok) {
    const shown = t.models.slice(0, 6).join(", ");
    const current = provider.default_model ?? "";
    return (
      <div className="provider-test">
        <p className="small" role="status">
          <Badge tone="success">connected</Badge> {t.models.length} model(s){shown !== "" && `: ${shown}`}
          {t.models.length > 6 && ", …"}
        </p>
        {t.models.length > 0 && (
          <label className="small provider-default">
            Default model{" "}
            <select
              className="input input-small"
              value={current}
              disabled={busy}
              onChange={(e) => onDefault(e.target.value === "" ? null : e.target.value)}
            >
              <option value="">None (each chat chooses)</option>
              {current !== "" && !t.models.includes(current) && <option value={current}>{current} (not listed)</option>}
              {t.models.map((m) => (
                <option key={m} value={m}>
                  {m}
                </option>
              ))}
            </select>
          </label>
        )}
      </div>
    );
  }
  return (
    <p className="small" role="status">
      <Badge tone="warning">{t.error_kind ?? "error"}</Badge> {t.error}
    </p>
  );
}

/** A provider to bring into view and mark; `seq` tells two requests for the same one apart. */
export type ProviderFocus = { id: string; seq: number };

/** How long a provider brought into view stays marked. */
const MARK_MS = 2500;

/**
 * LLM providers: the ones set up (with *Test connection*, which lists the
 * provider's models and lets one be made the default, *Edit* in place and
 * *Remove*), servers found running on this computer (one click to use
 * one), and a form to add one from a preset or any OpenAI-compatible URL,
 * with its API key going to the secret store. `active`: the page is shown.
 */
export function ProvidersSection({ active, focus = null }: { active: boolean; focus?: ProviderFocus | null }) {
  const [load, reload] = useLoad(() => api.listProviders(), "providers");
  const [presetsLoad] = useLoad(() => api.providerPresets(), "provider-presets");
  const [found, setFound] = useState<Detected[] | null>(null);
  const [shown, setShown] = useState(false);
  if (shown !== active) {
    setShown(active);
    if (active) {
      reload();
      void api.detectProviders().then(setFound, () => setFound([]));
    }
  }
  // A chat's error named this provider: its row is scrolled to (once the
  // list has it) and marked for a moment.
  const [marked, setMarked] = useState<ProviderFocus | null>(null);
  const [seen, setSeen] = useState(0);
  if (focus !== null && active && focus.seq !== seen) {
    setSeen(focus.seq);
    setMarked(focus);
  }
  const list = useRef<HTMLUListElement>(null);
  const scrolled = useRef(0);
  useEffect(() => {
    if (marked === null || scrolled.current === marked.seq) return;
    const row = [...(list.current?.querySelectorAll<HTMLElement>("li.provider-row") ?? [])].find(
      (li) => li.dataset.providerId === marked.id,
    );
    if (row === undefined) return; // not listed yet: again when the list comes
    scrolled.current = marked.seq;
    if (typeof row.scrollIntoView === "function") row.scrollIntoView({ block: "center" });
  });
  useEffect(() => {
    if (marked === null) return;
    const t = setTimeout(() => setMarked(null), MARK_MS);
    return () => clearTimeout(t);
  }, [marked]);
  const [tests, setTests] = useState<Record<string, ConnectionTest | "testing">>({});
  const [editing, setEditing] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const presets: Preset[] = presetsLoad.data ?? [];
  const providers = load.data ?? [];

  const [preset, setPreset] = useState("openai");
  const chosen = presets.find((p) => p.name === preset) ?? null;
  const [baseUrl, setBaseUrl] = useState("");
  const [model, setModel] = useState("");
  const [key, setKey] = useState("");

  const act = async (action: () => Promise<unknown>) => {
    setBusy(true);
    setError(null);
    try {
      await action();
      reload();
      return true;
    } catch (e) {
      setError(e);
      return false;
    } finally {
      setBusy(false);
      // A provider was added, removed or changed (maybe half-way): the
      // chat's model menu asks them again.
      forgetModels();
    }
  };

  const test = async (id: string) => {
    setTests((t) => ({ ...t, [id]: "testing" }));
    try {
      const r = await api.testProvider(id);
      setTests((t) => ({ ...t, [id]: r }));
    } catch (e) {
      setTests((t) => {
        const { [id]: _, ...rest } = t;
        return rest;
      });
      setError(e);
    }
  };

  /** Makes `model` the provider's default, keeping the rest as it is. */
  const setDefault = (p: ProviderRecord, model: string | null) =>
    act(() =>
      api.updateProvider(p.id, {
        base_url: p.base_url,
        default_model: model,
        headers: p.headers,
      }),
    );

  const use = (d: Detected) =>
    act(() =>
      api.addProvider({
        id: freeId(d.preset, providers),
        preset: d.preset,
        kind: null,
        base_url: d.base_url,
        default_model: d.models[0] ?? null,
        headers: {},
      }),
    );

  const add = async (e: FormEvent) => {
    e.preventDefault();
    const custom = chosen === null;
    const id = freeId(custom ? "custom" : preset, providers);
    const ok = await act(async () => {
      await api.addProvider(
        {
          id,
          preset: custom ? null : preset,
          kind: custom ? "openai" : null,
          base_url: baseUrl.trim() === "" ? null : baseUrl.trim(),
          default_model: model.trim() === "" ? null : model.trim(),
          headers: {},
        },
        key === "" ? null : key,
      );
    });
    if (ok) {
      setKey("");
      setModel("");
      setBaseUrl("");
    }
  };

  const unused = (found ?? []).filter((d) => !providers.some((p) => p.base_url === d.base_url));

  return (
    <section className="settings-section" aria-labelledby="providers-title">
      <h2 id="providers-title">Model providers</h2>
      <p className="muted">
        Where chats’ models run: a server on this computer (Ollama, LM Studio, llama.cpp, vLLM) or a hosted API. Keys go
        to the secret store, never to Atelier’s data folder.
      </p>
      {load.state === "error" && (
        <ErrorBox error={load.error} title="Providers could not be listed." onRetry={reload} />
      )}
      {load.data === null && load.state === "loading" && <Spinner label="Loading providers…" />}
      {load.data !== null && providers.length === 0 && <p className="empty-inline">No provider is set up yet.</p>}
      {providers.length > 0 && (
        <ul className="provider-list" aria-label="Providers" ref={list}>
          {providers.map((p) => {
            const t = tests[p.id];
            return (
              <li
                key={p.id}
                className={marked?.id === p.id ? "provider-row provider-row-marked" : "provider-row"}
                data-provider-id={p.id}
                aria-current={marked?.id === p.id ? "true" : undefined}
              >
                <div className="provider-main">
                  <strong>{p.id}</strong> <span className="muted small">{p.preset ?? p.kind}</span>
                  <div className="small">
                    <code>{p.base_url}</code> · {p.default_model ?? "no default model"} · {keyText(p)}
                  </div>
                  {t === "testing" && <Spinner label="Testing…" />}
                  {t !== undefined && t !== "testing" && (
                    <TestResult t={t} provider={p} busy={busy} onDefault={(m) => void setDefault(p, m)} />
                  )}
                  {editing === p.id && (
                    <ProviderEditor
                      provider={p}
                      onSaved={() => {
                        setEditing(null);
                        reload();
                      }}
                      onCancel={() => setEditing(null)}
                    />
                  )}
                </div>
                <button type="button" className="btn btn-small" disabled={busy} onClick={() => void test(p.id)}>
                  Test connection
                </button>
                {editing !== p.id && (
                  <button
                    type="button"
                    className="btn btn-small"
                    disabled={busy}
                    aria-label={`Edit ${p.id}`}
                    onClick={() => setEditing(p.id)}
                  >
                    Edit
                  </button>
                )}
                <button
                  type="button"
                  className="btn btn-small btn-ghost"
                  disabled={busy}
                  aria-label={`Remove ${p.id}`}
                  onClick={() => void act(() => api.removeProvider(p.id))}
                >
                  Remove
                </button>
              </li>
            );
          })}
        </ul>
      )}
      {unused.length > 0 && (
        <div aria-label="Found on this computer" role="group">
          <h3 className="settings-subhead">Found on this computer</h3>
          <ul className="provider-list">
            {unused.map((d) => (
              <li key={d.base_url} className="provider-row">
                <div className="provider-main">
                  <strong>{d.title}</strong> <code className="small">{d.base_url}</code>
                  <div className="small muted">
                    {d.models.length === 0 ? "no models yet" : d.models.slice(0, 6).join(", ")}
                  </div>
                </div>
                <button type="button" className="btn btn-small" disabled={busy} onClick={() => void use(d)}>
                  Use {d.title}
                </button>
              </li>
            ))}
          </ul>
        </div>
      )}
      <h3 className="settings-subhead">Add a provider</h3>
      <form className="provider-form" aria-label="Add a provider" onSubmit={(e) => void add(e)}>
        <label className="provider-form-kind">
          Provider
          <select className="input" value={preset} onChange={(e) => setPreset(e.target.value)}>
            {presets.map((p) => (
              <option key={p.name} value={p.name}>
                {p.title}
              </option>
            ))}
            <option value="">OpenAI-compatible</option>
          </select>
        </label>
        <label className="provider-form-url">
          Base URL
          <input
            className="input"
            type="url"
            value={baseUrl}
            placeholder={chosen?.base_url ?? "http://host:8000/v1"}
            title="The API's base URL, up to /v1"
            required={chosen === null}
            onChange={(e) => setBaseUrl(e.target.value)}
          />
        </label>
        <label>
          Default model
          <input
            className="input"
            value={model}
            placeholder="optional"
            spellCheck={false}
            onChange={(e) => setModel(e.target.value)}
          />
        </label>
        {chosen?.local !== true && (
          <label>
            API key
            <input
              className="input"
              type="password"
              autoComplete="off"
              value={key}
              placeholder={chosen?.key_env != null ? `or $${chosen.key_env}` : "if it needs one"}
              onChange={(e) => setKey(e.target.value)}
            />
          </label>
        )}
        <div className="provider-form-actions">
          <button type="submit" className="btn btn-primary" disabled={busy}>
            Add provider
          </button>
        </div>
      </form>
      {error !== null && <ErrorBox error={error} title="Not done." onDismiss={() => setError(null)} />}
    </section>
  );
}
