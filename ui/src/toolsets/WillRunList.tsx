import type { LaunchValue, WillRun } from "../bindings";
import { shown } from "../lib/shown";
import { shellLine } from "../settings/mcp/shellWords";

/** A tool and the function it runs, marked when it asks before each run. */
export function EntryLine({ toolId, entrypoint, asks }: { toolId: string; entrypoint: string; asks: boolean }) {
  return (
    <li>
      <span className="muted">{shown(toolId)}</span> → {shown(entrypoint)}
      {asks && (
        <span className="badge badge-warning asks-first" title="Asks you before each run">
          asks first
        </span>
      )}
    </li>
  );
}

/** A server's env or headers: every name, and a value only when it is made of `${…}` references. */
function LaunchValues({ label, values }: { label: string; values: LaunchValue[] }) {
  if (values.length === 0) return null;
  return (
    <ul className="plain-list launch-values" aria-label={label}>
      {values.map((v) => (
        <li key={v.name}>
          <span className="muted">{label === "Headers" ? "header" : "env"}</span> {shown(v.name)}
          {v.shown !== null ? (
            <> = {shown(v.shown)}</>
          ) : (
            <span className="muted" title="A plain value, perhaps a secret: it is never shown here">
              {" "}
              — a value is set (not shown)
            </span>
          )}
        </li>
      ))}
    </ul>
  );
}

/**
 * A stored requirement as a person reads it: its release, marked when a
 * hash-locked requirements.txt pinned it (`six==1.16 --hash=sha256:…`, often
 * dozens of hashes, one per wheel: the file has them; the installer checks them).
 */
export function requirementShown(r: string): string {
  const at = r.indexOf(" --hash=");
  return at < 0 ? shown(r) : `${shown(r.slice(0, at).trim())} (hash-checked)`;
}

/** What a bundle will run on this computer: Python entry points, packages, MCP servers. */
export function WillRunList({ willRun }: { willRun: WillRun }) {
  const { python_entrypoints: py, requirements, mcp_servers: servers } = willRun;
  const nothing = py.length === 0 && requirements.length === 0 && servers.length === 0;
  if (nothing) return <p className="muted">This bundle runs no code: no Python tools, requirements or MCP servers.</p>;
  return (
    <div className="will-run">
      {py.length > 0 && (
        <section aria-label="Python entry points">
          <h3 className="subhead">Python entry points ({py.length})</h3>
          <ul className="plain-list mono">
            {py.map((e) => (
              <EntryLine key={e.tool_id} toolId={e.tool_id} entrypoint={e.entrypoint} asks={e.requires_confirmation} />
            ))}
          </ul>
        </section>
      )}
      {requirements.length > 0 && (
        <section aria-label="Python requirements">
          <h3 className="subhead">Python packages installed from PyPI ({requirements.length})</h3>
          <ul className="plain-list mono">
            {requirements.map((r) => (
              <li key={r}>{requirementShown(r)}</li>
            ))}
          </ul>
        </section>
      )}
      {servers.length > 0 && (
        <section aria-label="MCP servers">
          <h3 className="subhead">MCP servers ({servers.length})</h3>
          <ul className="plain-list mono">
            {servers.map((s) => (
              <li key={s.id}>
                <span className="muted">{shown(s.id)}:</span>{" "}
                {s.command !== null ? shellLine([s.command, ...s.args]) : `connects to ${shown(s.url ?? "(no URL)")}`}
                <LaunchValues label="Environment" values={s.env} />
                <LaunchValues label="Headers" values={s.headers} />
              </li>
            ))}
          </ul>
        </section>
      )}
    </div>
  );
}
