import type { EnvReference } from "../../bindings";

const servers = (r: EnvReference) => `${r.server_ids.length === 1 ? "server" : "servers"} ${r.server_ids.join(", ")}`;

/**
 * The `${NAME}`s its servers read that the bundle does not bring: a
 * variable of your environment it may read only if you tick it (unticked by
 * default), or a secret to set later.
 */
export function EnvReferences({
  toolsetId,
  references,
  allowed,
  onAllowed,
}: {
  toolsetId: string;
  references: EnvReference[];
  /** The names ticked so far. */
  allowed: string[];
  onAllowed: (names: string[]) => void;
}) {
  if (references.length === 0) return null;
  const toggle = (name: string, on: boolean) =>
    onAllowed(on ? [...allowed.filter((n) => n !== name), name] : allowed.filter((n) => n !== name));
  return (
    <section className="consent-env" aria-label="Environment variables">
      <h3 className="subhead">Values its servers read ({references.length})</h3>
      <ul className="plain-list env-list">
        {references.map((r) => {
          if (r.stored || r.allowed) {
            return (
              <li key={r.name}>
                <code>${r.name}</code>{" "}
                <span className="muted small">
                  {r.stored ? "set for this toolset" : "read from your environment (allowed before)"} · {servers(r)}
                </span>
              </li>
            );
          }
          if (r.in_environment) {
            return (
              <li key={r.name}>
                <label className="check-row env-check">
                  <input
                    type="checkbox"
                    checked={allowed.includes(r.name)}
                    onChange={(e) => toggle(r.name, e.target.checked)}
                  />
                  <span>
                    Let it read <code>${r.name}</code> from your environment{" "}
                    <span className="muted small">· {servers(r)}</span>
                  </span>
                </label>
              </li>
            );
          }
          return (
            <li key={r.name}>
              <code>${r.name}</code>{" "}
              <span className="muted small">
                not set: {servers(r)} will need it. Set it later with{" "}
                <code>
                  atelier secrets set toolset:{toolsetId} {r.name}
                </code>
              </span>
            </li>
          );
        })}
      </ul>
    </section>
  );
}
