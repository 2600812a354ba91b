import type { EnvReference, StoreKind } from "../../bindings";
import { storeWords } from "./SecretsNotice";

/** "server a" / "servers a, b": the servers that read a `${NAME}`. */
export const servers = (r: EnvReference) =>
  `${r.server_ids.length === 1 ? "server" : "servers"} ${r.server_ids.join(", ")}`;

/**
 * The `${NAME}`s its servers read that the bundle does not bring: a
 * variable of your environment it may read only if you tick it (unticked by
 * default), or a value to type here (a password field: stored for this
 * toolset right after the install, never shown again).
 */
export function EnvReferences({
  references,
  allowed,
  onAllowed,
  values,
  onValues,
  store,
}: {
  references: EnvReference[];
  /** The names ticked so far. */
  allowed: string[];
  onAllowed: (names: string[]) => void;
  /** The values typed so far, by name. */
  values: Record<string, string>;
  onValues: (values: Record<string, string>) => void;
  /** Where a value typed now would be kept; none: nowhere yet (the secrets notice says how to allow the file). */
  store: StoreKind | null;
}) {
  if (references.length === 0) return null;
  const toggle = (name: string, on: boolean) =>
    onAllowed(on ? [...allowed.filter((n) => n !== name), name] : allowed.filter((n) => n !== name));
  const typed = (r: EnvReference) => (
    <input
      className="input env-value"
      type="password"
      autoComplete="off"
      aria-label={`Value of ${r.name}`}
      placeholder={r.in_environment ? "Or type its value" : "Type its value"}
      value={values[r.name] ?? ""}
      onChange={(e) => onValues({ ...values, [r.name]: e.target.value })}
    />
  );
  return (
    <section className="consent-env" aria-label="Environment variables">
      <h3 className="subhead">Values its servers read ({references.length})</h3>
      {references.some((r) => !r.stored && !r.allowed) && (
        <p className="muted small">
          A value typed here is kept{store !== null ? ` in ${storeWords(store)}` : ""} for this toolset only, and never
          shown again. Left empty, its server will not start until you set it in the toolset’s details.
        </p>
      )}
      <ul className="plain-list env-list">
        {references.map((r) => {
          if (r.stored || r.allowed) {
            return (
              <li key={r.name}>
                <code>${r.name}</code>{" "}
                <span className="muted small">
                  {r.stored
                    ? r.origin === "bundle"
                      ? "set for this toolset, by the version installed before"
                      : "set for this toolset"
                    : "read from your environment (allowed before)"}{" "}
                  · {servers(r)}
                </span>
              </li>
            );
          }
          const ticked = allowed.includes(r.name);
          return (
            <li key={r.name} className="env-reference">
              <span>
                <code>${r.name}</code>{" "}
                <span className="muted small">
                  {ticked ? "read from your environment" : "not set"}: {servers(r)} will need it.
                </span>
              </span>
              {r.in_environment && (
                <label className="check-row env-check">
                  <input type="checkbox" checked={ticked} onChange={(e) => toggle(r.name, e.target.checked)} />
                  <span>
                    Let it read <code>${r.name}</code> from your environment
                  </span>
                </label>
              )}
              {!ticked && typed(r)}
            </li>
          );
        })}
      </ul>
    </section>
  );
}
