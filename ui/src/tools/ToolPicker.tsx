import { useMemo, useRef, useState } from "react";
import type { ToolRecord, ToolsetRecord } from "../bindings";
import { EmptyState } from "../components/feedback";
import { useShortcut } from "../lib/shortcuts";
import { groupTools } from "./groupTools";
import { ToolBadges } from "./ToolBadges";

export function ToolPicker({
  tools,
  toolsets,
  selectedId,
  onSelect,
}: {
  tools: ToolRecord[];
  toolsets: ToolsetRecord[];
  selectedId: string | null;
  onSelect: (tool: ToolRecord) => void;
}) {
  const [query, setQuery] = useState("");
  const search = useRef<HTMLInputElement>(null);
  useShortcut("focus-picker", () => {
    // After the Tools tab is shown (same event), focus and select.
    window.setTimeout(() => {
      search.current?.focus();
      search.current?.select();
    }, 0);
  });
  const groups = useMemo(() => groupTools(tools, toolsets, query), [tools, toolsets, query]);

  return (
    <div className="picker">
      <input
        ref={search}
        className="input"
        type="search"
        placeholder="Search tools by name, id or description"
        aria-label="Search tools"
        value={query}
        onChange={(e) => setQuery(e.target.value)}
      />
      {tools.length === 0 && (
        <EmptyState title="No tools available">Enable or import a toolset in the Toolsets tab.</EmptyState>
      )}
      {tools.length > 0 && groups.length === 0 && (
        <EmptyState title={`Nothing matches “${query}”`}>Try a shorter word, or clear the search.</EmptyState>
      )}
      {groups.map((g) => (
        <section key={g.key} className="picker-group" aria-label={g.label}>
          <h3 className="picker-group-title">
            {g.label} <span className="muted">{g.tools.length}</span>
          </h3>
          <ul className="picker-list">
            {g.tools.map((t) => (
              <li key={t.tool_id}>
                <button
                  type="button"
                  className={t.tool_id === selectedId ? "picker-item picker-item-active" : "picker-item"}
                  aria-pressed={t.tool_id === selectedId}
                  onClick={() => onSelect(t)}
                  title={t.description}
                >
                  <span className="picker-item-head">
                    <span className="picker-item-name">{t.name}</span>
                    <ToolBadges tool={t} />
                  </span>
                  <code className="picker-item-id">{t.tool_id}</code>
                </button>
              </li>
            ))}
          </ul>
        </section>
      ))}
    </div>
  );
}
