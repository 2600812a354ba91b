import { api } from "../api";
import { ErrorBox, Spinner } from "../components/feedback";
import { useLoad } from "../lib/useLoad";
import { ToolBadges } from "../tools/ToolBadges";
import { EnvAllowances } from "./settings/EnvAllowances";
import { ToolsetEnvSecrets } from "./settings/ToolsetEnvSecrets";
import { ToolsetSettings } from "./settings/ToolsetSettings";
import { requirementShown } from "./WillRunList";

/** The tools (and MCP servers) a toolset brings, and its settings, loaded when expanded. */
export function ToolsetDetailsView({ id }: { id: string }) {
  const [load, reload] = useLoad(() => api.getToolset(id), id);
  if (load.state === "error")
    return <ErrorBox error={load.error} title="Its tools could not be loaded." onRetry={reload} />;
  if (load.data === null) return <Spinner label="Loading tools…" />;
  const d = load.data;
  return (
    <div className="toolset-details">
      {d.tools.length === 0 ? (
        <p className="muted small">This toolset has no tools.</p>
      ) : (
        <ul className="tool-mini-list" aria-label={`Tools of ${d.name}`}>
          {d.tools.map((t) => (
            <li key={t.tool_id}>
              <span className="tool-mini-name">{t.name}</span> <code className="muted small">{t.tool_id}</code>
              <ToolBadges tool={t} />
              {t.description !== "" && <div className="muted small">{t.description}</div>}
            </li>
          ))}
        </ul>
      )}
      {d.mcp_servers.length > 0 && (
        <p className="small">MCP servers: {d.mcp_servers.map((s) => s.server_id).join(", ")}</p>
      )}
      <p className="muted small">
        {d.files.length} files{d.source_ref !== null ? ` · from ${d.source_ref}` : ""}
        {d.python_requirements.length > 0
          ? ` · requires ${d.python_requirements.map(requirementShown).join(", ")}`
          : ""}
      </p>
      <p className="muted small">
        Models call its tools <code>{d.prefix}.&lt;tool&gt;</code>
        {d.scope === "shared" ? " · one instance shared by every chat" : ""}
      </p>
      <ToolsetSettings id={id} name={d.name} />
      {d.mcp_servers.length > 0 && <ToolsetEnvSecrets id={id} enabled={d.enabled} />}
      <EnvAllowances id={id} />
    </div>
  );
}
