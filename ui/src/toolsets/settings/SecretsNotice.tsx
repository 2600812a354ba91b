import { useState } from "react";
import { api } from "../../api";
import type { Consent, SecretsStatus, StoreKind } from "../../bindings";
import { ErrorBox, Notice } from "../../components/feedback";
import { useLoad } from "../../lib/useLoad";

const plural = (n: number, one: string, many: string) => (n === 1 ? one : many);

/** Where secrets go, in words. */
export function storeWords(store: StoreKind): string {
  return store === "keychain" ? "your keychain" : "a file only you can read";
}

/**
 * No keychain answers and the file is not allowed: why, and the button
 * that allows it (then `onAllowed`, which checks the bundle again).
 */
export function NoKeychain({ onAllowed }: { onAllowed: () => void }) {
  const [status] = useLoad(() => api.secretsStatus(), "secrets-status");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const reason = status.data?.keychain_error ?? null;
  const allow = async () => {
    setBusy(true);
    setError(null);
    try {
      await api.allowFileSecrets(true);
      onAllowed();
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  return (
    <div className="notice notice-warning no-keychain" role="alert">
      <p>
        <strong>No keychain is reachable on this computer</strong>
        {reason !== null && <span className="muted"> ({reason})</span>}, so secrets cannot be stored yet. Atelier can
        keep them in a file only you can read{status.data?.file ? <code> {status.data.file}</code> : null} instead.
      </p>
      <button type="button" className="btn btn-small" disabled={busy} onClick={() => void allow()}>
        {busy ? "Allowing…" : "Keep secrets in a file only I can read"}
      </button>
      {error !== null && <ErrorBox error={error} title="Not allowed." onDismiss={() => setError(null)} />}
    </div>
  );
}

/**
 * Where a key typed now goes, in words (`status`: `secrets_status`'s
 * answer, null while it loads); where no keychain answers and the file is
 * not allowed, why, with the button that allows it (then `onAllowed`).
 */
export function KeyDestination({ status, onAllowed }: { status: SecretsStatus | null; onAllowed: () => void }) {
  if (status === null) return null;
  if (status.store === null) return <NoKeychain onAllowed={onAllowed} />;
  return (
    <p className="muted small">
      The key goes to{" "}
      {status.store === "keychain" ? (
        "your system keychain"
      ) : (
        <>a file only you can read{status.file !== null && <code> {status.file}</code>}</>
      )}
      , never into Atelier’s database.
    </p>
  );
}

/**
 * The secrets a bundle brings (names only: the report has no values) and
 * where they will be kept. A folder's values stay in the folder.
 */
export function SecretsNotice({
  consent,
  folder,
  typed = 0,
  onAllowed,
}: {
  consent: Consent;
  /** A folder runs in place: its plain-text values are read from it, not moved. */
  folder: boolean;
  /** How many values of `${NAME}`s were typed in the form: they too need a place. */
  typed?: number;
  onAllowed: () => void;
}) {
  const values = consent.secret_values;
  const n = values.length;
  const sensitive = consent.settings?.fields.filter((f) => f.sensitive === true) ?? [];
  const needsStore = (n > 0 && !folder) || sensitive.length > 0 || typed > 0;
  if (!needsStore && n === 0) return null;
  const store = consent.secret_store;
  const kept = store === null ? null : storeWords(store);
  return (
    <section className="consent-secrets" aria-label="Secrets">
      <h3 className="subhead">Secrets</h3>
      {n > 0 &&
        (folder ? (
          <p>
            This folder holds {n} secret {plural(n, "value", "values")} in plain text; Atelier reads{" "}
            {plural(n, "it", "them")} from the folder when a server starts and never copies {plural(n, "it", "them")}{" "}
            into its data.
          </p>
        ) : (
          <p>
            This bundle contains {n} secret {plural(n, "value", "values")}
            {kept !== null ? `; ${plural(n, "it", "they")} will be kept in ${kept}.` : "."}
          </p>
        ))}
      {n > 0 && (
        <ul className="plain-list mono small" aria-label="Secret values">
          {values.map((v) => (
            <li key={`${v.server_id}/${v.field}/${v.name}`}>
              <span className="muted">{v.server_id}:</span> {v.field} {v.name}
            </li>
          ))}
        </ul>
      )}
      {sensitive.length > 0 && kept !== null && (
        <p>
          {plural(sensitive.length, "Its sensitive setting", "Its sensitive settings")} (
          {sensitive.map((f) => f.title).join(", ")}) {plural(sensitive.length, "is", "are")} kept in {kept}, never
          shown again.
        </p>
      )}
      {needsStore && store === null && <NoKeychain onAllowed={onAllowed} />}
      {needsStore && store === "file" && (
        <Notice>No keychain is reachable here: you allowed secrets to be kept in a file only you can read.</Notice>
      )}
    </section>
  );
}
