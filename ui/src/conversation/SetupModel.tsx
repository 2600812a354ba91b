// An app with no provider yet: the model servers found on this computer,
// each a click away, or a short form for an API key. Tools still run by
// hand meanwhile. The default model is the core's choice: a found server's
// first, or, for a key, the one `Providers::add_with_key` chooses from what
// the provider lists.

import { useState, type FormEvent } from "react";
import { api, errorText } from "../api";
import type { Detected, Preset } from "../bindings";
import { Spinner } from "../components/feedback";
import { useLoad } from "../lib/useLoad";
import { KeyDestination } from "../toolsets/settings/SecretsNotice";
import { forgetModels, hostOf } from "./useProviders";

export function SetupModel({ presets, onAdded }: { presets: Preset[]; onAdded: () => void }) {
  const [detected, redetect] = useLoad(() => api.detectProviders(), "detect");
  // Where the key would go: with no keychain, the file only the person can read, once they agree.
  const [secrets, recheckSecrets] = useLoad(() => api.secretsStatus(), "secrets-status");
  const noStore = secrets.data?.store === null;
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const remote = presets.filter((p) => !p.local);
  const [preset, setPreset] = useState<string>("");
  const [key, setKey] = useState("");
  const chosen = remote.find((p) => p.name === preset) ?? remote[0];

  const act = async (what: string, f: () => Promise<void>) => {
    setBusy(what);
    setError(null);
    try {
      await f();
      forgetModels();
      onAdded();
    } catch (e) {
      setError(e);
    } finally {
      setBusy(null);
    }
  };

  const use = (d: Detected) =>
    act(d.title, async () => {
      await api.addProvider({
        id: d.preset,
        preset: d.preset,
        kind: null,
        base_url: d.base_url,
        // The core lists the model it chooses first (`detect_at`, `choose_model`).
        default_model: d.models[0] ?? null,
        headers: {},
      });
    });

  const saveKey = (e: FormEvent) => {
    e.preventDefault();
    if (chosen === undefined || key.trim() === "") return;
    void act(chosen.title, async () => {
      await api.addProvider(
        {
          id: chosen.name,
          preset: chosen.name,
          kind: null,
          base_url: null,
          default_model: null,
          headers: {},
        },
        key.trim(),
      );
    });
  };

  return (
    <section className="setup-model" aria-label="Set up a model">
      <h2 className="section-title">Set up a model to chat with</h2>
      <p className="muted small">
        No model is set up yet. Use a server running on this computer, or add an API key. Tools still run by hand from
        the list (type <kbd>/</kbd> in the message box).
      </p>
      <h3 className="setup-heading">Found on this computer</h3>
      {detected.data === null && detected.state === "loading" && <Spinner label="Looking for model servers…" />}
      {detected.data !== null && detected.data.length === 0 && (
        <p className="muted small">
          None answered (Ollama, LM Studio, llama.cpp…).{" "}
          <button type="button" className="btn btn-small btn-ghost" onClick={redetect}>
            Look again
          </button>
        </p>
      )}
      {detected.data !== null && detected.data.length > 0 && (
        <ul className="setup-servers">
          {detected.data.map((d) => (
            <li key={d.preset + d.base_url} className="setup-server">
              <span>
                <strong>{d.title}</strong> <span className="muted small">at {hostOf(d.base_url)}</span>
                <br />
                <span className="muted small">
                  {d.models.length === 0
                    ? "no models downloaded yet"
                    : `${d.models.length} model${d.models.length === 1 ? "" : "s"}: ${d.models.slice(0, 4).join(", ")}${d.models.length > 4 ? ", …" : ""}`}
                </span>
              </span>
              <button
                type="button"
                className="btn btn-small btn-primary"
                disabled={busy !== null}
                onClick={() => void use(d)}
              >
                {busy === d.title ? "Adding…" : `Use ${d.title}`}
              </button>
            </li>
          ))}
        </ul>
      )}
      {remote.length > 0 && (
        <form className="setup-key" aria-label="Add an API key" onSubmit={saveKey}>
          <h3 className="setup-heading">Or add an API key</h3>
          <div className="setup-key-row">
            <select
              className="input input-small"
              aria-label="Provider"
              value={chosen?.name ?? ""}
              onChange={(e) => setPreset(e.target.value)}
            >
              {remote.map((p) => (
                <option key={p.name} value={p.name}>
                  {p.title}
                </option>
              ))}
            </select>
            <input
              className="input input-small"
              type="password"
              aria-label="API key"
              placeholder={chosen === undefined ? "API key" : `Your ${chosen.title} API key`}
              autoComplete="off"
              value={key}
              onChange={(e) => setKey(e.target.value)}
            />
            <button
              type="submit"
              className="btn btn-small btn-primary"
              disabled={busy !== null || key.trim() === "" || noStore}
            >
              {busy === chosen?.title ? "Saving…" : "Save key"}
            </button>
          </div>
          <KeyDestination status={secrets.data} onAllowed={recheckSecrets} />
        </form>
      )}
      {error !== null && (
        <p className="run-error-detail small" role="alert">
          Not added: {errorText(error)}
        </p>
      )}
    </section>
  );
}
