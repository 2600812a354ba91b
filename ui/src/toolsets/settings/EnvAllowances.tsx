import { useState } from "react";
import { api } from "../../api";
import { ErrorBox } from "../../components/feedback";
import { useLoad } from "../../lib/useLoad";

/** The variables of your environment an installed toolset may read, each with a way to take it back. */
export function EnvAllowances({ id }: { id: string }) {
  const [load, reload, set] = useLoad(() => api.toolsetAllowedEnv(id), `env:${id}`);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  if (load.state === "error")
    return <ErrorBox error={load.error} title="Its allowed variables could not be loaded." onRetry={reload} />;
  const names = load.data ?? [];
  if (names.length === 0) return null;
  const forbid = async (name: string) => {
    setBusy(true);
    setError(null);
    try {
      set(await api.allowToolsetEnv(id, name, false));
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  return (
    <section className="toolset-env" aria-label="Variables it may read">
      <h4>Variables it may read from your environment</h4>
      <ul className="plain-list env-list">
        {names.map((n) => (
          <li key={n}>
            <code>${n}</code>{" "}
            <button
              type="button"
              className="btn btn-small btn-ghost"
              disabled={busy}
              aria-label={`Stop letting it read ${n}`}
              onClick={() => void forbid(n)}
            >
              Stop
            </button>
          </li>
        ))}
      </ul>
      {error !== null && <ErrorBox error={error} title="Not changed." onDismiss={() => setError(null)} />}
    </section>
  );
}
