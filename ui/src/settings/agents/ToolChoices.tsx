/**
 * The agent editor's toolset checkboxes: every installed toolset and every
 * MCP server, each allowing all of its tools. One the agent names that is
 * not here (a file imported before its toolset, a server removed) stays
 * listed, ticked, so the person sees it and can untick it.
 */
import type { ServerDetails, ToolsetRecord } from "../../bindings";

type Choice = { id: string; title: string; note: string | null };

function choices(toolsets: ToolsetRecord[], servers: ServerDetails[], chosen: string[]) {
  const ts: Choice[] = toolsets.map((t) => ({
    id: t.id,
    title: t.name === t.id ? t.id : `${t.name} (${t.id})`,
    note: t.enabled ? null : "disabled",
  }));
  const mcp: Choice[] = servers.map(({ server: s }) => {
    const tools = s.tools?.length;
    return {
      id: s.id,
      title: s.id,
      note: !s.enabled
        ? "disabled"
        : tools === undefined
          ? "not listed yet"
          : `${tools} ${tools === 1 ? "tool" : "tools"}`,
    };
  });
  const known = new Set([...ts, ...mcp].map((c) => c.id));
  const missing: Choice[] = chosen
    .filter((id) => !known.has(id))
    .map((id) => ({ id, title: id, note: "not installed" }));
  return { ts, mcp, missing };
}

export function ToolChoices({
  toolsets,
  servers,
  chosen,
  onChange,
}: {
  toolsets: ToolsetRecord[];
  servers: ServerDetails[];
  chosen: string[];
  onChange: (ids: string[]) => void;
}) {
  const { ts, mcp, missing } = choices(toolsets, servers, chosen);
  const toggle = (id: string, on: boolean) =>
    onChange(on ? [...chosen.filter((c) => c !== id), id] : chosen.filter((c) => c !== id));
  const group = (title: string, list: Choice[]) =>
    list.length > 0 && (
      <div className="agent-choice-group" role="group" aria-label={title}>
        <div className="muted small">{title}</div>
        {list.map((c) => (
          <label key={c.id} className="agent-check">
            <input type="checkbox" checked={chosen.includes(c.id)} onChange={(e) => toggle(c.id, e.target.checked)} />
            {c.title}
            {c.note !== null && <span className="muted small"> · {c.note}</span>}
          </label>
        ))}
      </div>
    );
  return (
    <fieldset className="agent-field">
      <legend>Toolsets and MCP servers</legend>
      <p className="field-help muted small">All the tools of each one ticked.</p>
      {ts.length + mcp.length + missing.length === 0 && (
        <p className="empty-inline">No toolset or MCP server is installed.</p>
      )}
      <div className="agent-choices">
        {group("Toolsets", ts)}
        {group("MCP servers", mcp)}
        {group("Not here", missing)}
      </div>
    </fieldset>
  );
}
