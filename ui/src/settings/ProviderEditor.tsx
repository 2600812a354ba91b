/**
 * A provider's edit form, in place on its row: base URL, default model
 * (the models the provider lists are offered, read when the form opens),
 * plain headers, and the API key — shown only as set or not set, replaced
 * by typing a new one (it goes to the secret store; an empty box keeps
 * the key). Headers kept in the secret store are named, never shown.
 */
import { useState, type FormEvent } from "react";
import { api, errorText } from "../api";
import type { ProviderRecord } from "../bindings";
import { ErrorBox } from "../components/feedback";
import { FormActions } from "../components/FormActions";
import { forgetModels } from "../conversation/useProviders";
import { keyText } from "./providerText";

type Header = { name: string; value: string };

export function ProviderEditor({
  provider,
  onSaved,
  onCancel,
}: {
  provider: ProviderRecord;
  onSaved: () => void;
  onCancel: () => void;
}) {
  const p = provider;
  const [baseUrl, setBaseUrl] = useState(p.base_url);
  const [model, setModel] = useState(p.default_model ?? "");
  const [headers, setHeaders] = useState<Header[]>(() =>
    Object.entries(p.headers).map(([name, value]) => ({ name, value })),
  );
  const [key, setKey] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  // The provider's own list of models, read once when the form opens; why
  // not, when it could not be read.
  const [models, setModels] = useState<string[] | "listing" | { failed: string } | null>(null);
  if (models === null) {
    setModels("listing");
    api.testProvider(p.id).then(
      (t) => setModels(t.ok ? t.models : { failed: t.error ?? t.error_kind ?? "no answer" }),
      (e: unknown) => setModels({ failed: errorText(e) }),
    );
  }
  const field = (name: string) => `provider-${p.id}-${name}`;
  const setHeader = (i: number, h: Partial<Header>) =>
    setHeaders((all) => all.map((x, j) => (i === j ? { ...x, ...h } : x)));

  const save = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await api.updateProvider(
        p.id,
        {
          base_url: baseUrl.trim(),
          default_model: model.trim() === "" ? null : model.trim(),
          headers: Object.fromEntries(headers.filter((h) => h.name.trim() !== "").map((h) => [h.name.trim(), h.value])),
        },
        key === "" ? null : key,
      );
      onSaved();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
      forgetModels(); // its URL or key may have changed what it offers
    }
  };

  const listed = Array.isArray(models) ? models : [];
  return (
    <form className="provider-edit" aria-label={`Edit ${p.id}`} onSubmit={(e) => void save(e)}>
      <div className="provider-edit-grid">
        <label htmlFor={field("url")}>Base URL</label>
        <input
          id={field("url")}
          className="input"
          type="url"
          required
          value={baseUrl}
          spellCheck={false}
          onChange={(e) => setBaseUrl(e.target.value)}
        />
        <label htmlFor={field("model")}>Default model</label>
        <div className="provider-edit-cell">
          {listed.length > 0 ? (
            <select id={field("model")} className="input" value={model} onChange={(e) => setModel(e.target.value)}>
              <option value="">None (each chat chooses)</option>
              {!listed.includes(model) && model !== "" && <option value={model}>{model} (not listed)</option>}
              {listed.map((m) => (
                <option key={m} value={m}>
                  {m}
                </option>
              ))}
            </select>
          ) : (
            <input
              id={field("model")}
              className="input"
              value={model}
              spellCheck={false}
              autoComplete="off"
              onChange={(e) => setModel(e.target.value)}
            />
          )}
          <span className="field-help muted small" role="status">
            {models === "listing"
              ? "Asking the provider for its models…"
              : listed.length > 0
                ? `${listed.length} ${listed.length === 1 ? "model" : "models"} listed by the provider.`
                : models !== null && !Array.isArray(models)
                  ? `Its models could not be listed (${models.failed}): type the model’s name.`
                  : "The provider listed no models: type the model’s name."}
          </span>
        </div>
        <label htmlFor={field("key")}>API key</label>
        <div className="provider-edit-cell">
          <input
            id={field("key")}
            className="input"
            type="password"
            autoComplete="off"
            value={key}
            placeholder={p.key_from === null ? "not set" : "set — type a new key to replace it"}
            onChange={(e) => setKey(e.target.value)}
          />
          <span className="field-help muted small">
            {p.key_from === null ? "No key: fine for a server on this computer." : `Now: ${keyText(p)}.`}
          </span>
        </div>
        <span className="provider-edit-label">Headers</span>
        <div className="provider-edit-cell">
          {headers.map((h, i) => (
            <div key={i} className="provider-header">
              <input
                className="input"
                aria-label={`Header ${i + 1} name`}
                placeholder="Name"
                value={h.name}
                spellCheck={false}
                onChange={(e) => setHeader(i, { name: e.target.value })}
              />
              <input
                className="input"
                aria-label={`Header ${i + 1} value`}
                placeholder="Value"
                value={h.value}
                spellCheck={false}
                onChange={(e) => setHeader(i, { value: e.target.value })}
              />
              <button
                type="button"
                className="btn btn-small btn-ghost"
                aria-label={`Remove header ${i + 1}`}
                onClick={() => setHeaders((all) => all.filter((_, j) => j !== i))}
              >
                ✕
              </button>
            </div>
          ))}
          {p.secret_headers.map((h) => (
            <div key={h} className="small">
              <code>{h}</code> <span className="muted">set, in the secret store</span>
            </div>
          ))}
          <button
            type="button"
            className="btn btn-small btn-ghost provider-add-header"
            onClick={() => setHeaders((all) => [...all, { name: "", value: "" }])}
          >
            Add header
          </button>
        </div>
      </div>
      {error !== null && <ErrorBox error={error} title="Not saved." onDismiss={() => setError(null)} />}
      <FormActions submit="Save" busy={busy} onCancel={onCancel} />
    </form>
  );
}
