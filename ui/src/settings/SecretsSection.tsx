import { useState } from "react";
import { api } from "../api";
import type { SecretsStatus } from "../bindings";
import { Badge, ErrorBox, Spinner } from "../components/feedback";
import { useLoad } from "../lib/useLoad";

function whereTheyGo(s: SecretsStatus): string {
  switch (s.store) {
    case "keychain":
      return "your keychain";
    case "file":
      return "a file only you can read";
    default:
      return "nowhere yet: allow the file below (or start a keychain) to store any";
  }
}

/**
 * Where secrets (API keys, tokens) are kept: whether the OS keychain
 * answers and why not, how many are stored, and the consent to a file only
 * you can read where no keychain is reachable. `active`: the page is shown.
 */
export function SecretsSection({ active }: { active: boolean }) {
  const [load, reload, set] = useLoad(() => api.secretsStatus(), "secrets-status");
  // Checked again each time the page is shown (an install may have allowed the file meanwhile).
  const [shown, setShown] = useState(active);
  if (shown !== active) {
    setShown(active);
    if (active) reload();
  }
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const s = load.data;

  const allowFile = async (allowed: boolean) => {
    setBusy(true);
    setError(null);
    try {
      set(await api.allowFileSecrets(allowed));
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };

  return (
    <section className="settings-section" aria-labelledby="secrets-title">
      <h2 id="secrets-title">Secrets</h2>
      <p className="muted">
        API keys and tokens of model providers and toolsets. Atelier keeps their names in its data folder and their
        values only where this says; a value is never shown again, logged or exported.
      </p>
      {load.state === "error" && (
        <ErrorBox error={load.error} title="Where secrets go could not be checked." onRetry={reload} />
      )}
      {s === null && load.state === "loading" && <Spinner label="Checking the keychain…" />}
      {s !== null && (
        <>
          <dl className="facts" aria-label="Secret store">
            <dt>Keychain</dt>
            <dd>
              {s.keychain ? (
                <Badge tone="success">reachable</Badge>
              ) : (
                <>
                  <Badge tone="warning">not reachable</Badge>
                  {s.keychain_error !== null && <span className="muted small"> {s.keychain_error}</span>}
                </>
              )}
            </dd>
            <dt>New secrets go to</dt>
            <dd>
              {whereTheyGo(s)}
              {s.store === "file" && s.file !== null && (
                <>
                  {" "}
                  <code className="small">{s.file}</code>
                </>
              )}
            </dd>
            <dt>Stored</dt>
            <dd>
              {s.count} {s.count === 1 ? "secret" : "secrets"}
            </dd>
          </dl>
          <label className="check-row">
            <input
              type="checkbox"
              checked={s.file_allowed}
              disabled={busy}
              onChange={(e) => void allowFile(e.target.checked)}
            />
            Where no keychain is reachable, keep secrets in a file only I can read
          </label>
          {s.keychain && s.file_allowed && (
            <p className="muted small">A keychain is reachable here, so the file is not used.</p>
          )}
          <button type="button" className="btn btn-small check-again" disabled={busy} onClick={reload}>
            Check again
          </button>
        </>
      )}
      {error !== null && <ErrorBox error={error} title="Not saved." onDismiss={() => setError(null)} />}
    </section>
  );
}
