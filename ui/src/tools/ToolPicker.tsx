import { useEffect, useId, useMemo, useRef, useState, type KeyboardEvent } from "react";
import type { ToolRecord, ToolsetRecord } from "../bindings";
import { EmptyState } from "../components/feedback";
import { groupTools } from "./groupTools";
import { ToolBadges } from "./ToolBadges";

/**
 * The tool list with its search, a WAI-ARIA combobox: the search keeps the
 * focus while ↓ ↑ move a highlight over the tools (a listbox of options,
 * grouped by toolset, the highlighted one its active descendant, so a
 * screen reader says it) and Enter picks it; a click picks one too. The
 * search is the list's one Tab stop.
 */
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
  // Like a command palette: ↓/↑ move a highlight over the results, Enter
  // picks it (the first result is highlighted as soon as one types).
  const [highlight, setHighlight] = useState<number | null>(null);
  const search = useRef<HTMLInputElement>(null);
  const list = useRef<HTMLDivElement>(null);
  const idBase = useId();
  const groups = useMemo(() => groupTools(tools, toolsets, query), [tools, toolsets, query]);
  const flat = useMemo(() => groups.flatMap((g) => g.tools), [groups]);
  const indexOf = useMemo(() => new Map(flat.map((t, i) => [t, i])), [flat]);
  const lit = highlight !== null && highlight < flat.length ? highlight : null;
  const itemId = (i: number) => `${idBase}-tool-${i}`;
  const listId = `${idBase}-list`;
  useEffect(() => {
    if (lit === null) return;
    const el = list.current?.querySelector<HTMLElement>(`[data-index="${lit}"]`);
    if (el != null && typeof el.scrollIntoView === "function") el.scrollIntoView({ block: "nearest" });
  }, [lit]);
  const onKeyDown = (e: KeyboardEvent<HTMLInputElement>) => {
    if (e.key === "ArrowDown" || e.key === "ArrowUp") {
      e.preventDefault();
      if (flat.length === 0) return;
      const down = e.key === "ArrowDown";
      setHighlight(
        lit === null ? (down ? 0 : flat.length - 1) : Math.max(0, Math.min(flat.length - 1, lit + (down ? 1 : -1))),
      );
    } else if (e.key === "Enter") {
      const pick = lit !== null ? flat[lit] : flat.length === 1 ? flat[0] : undefined;
      if (pick === undefined) return;
      e.preventDefault();
      onSelect(pick);
    }
  };

  return (
    <div className="picker">
      <input
        ref={search}
        className="input"
        type="search"
        placeholder="Search tools"
        title="Search by name, id or description; ↓ ↑ to choose, Enter to open"
        aria-label="Search tools"
        role="combobox"
        aria-autocomplete="list"
        // The list is always shown, when there is one.
        aria-expanded={flat.length > 0}
        aria-controls={flat.length > 0 ? listId : undefined}
        aria-activedescendant={lit === null ? undefined : itemId(lit)}
        value={query}
        onChange={(e) => {
          setQuery(e.target.value);
          setHighlight(e.target.value.trim() === "" ? null : 0);
        }}
        onKeyDown={onKeyDown}
      />
      <div className="picker-scroll" ref={list}>
        {tools.length === 0 && (
          <EmptyState title="No tools available">Enable or import a toolset in the Toolsets tab.</EmptyState>
        )}
        {tools.length > 0 && groups.length === 0 && (
          <EmptyState title={`Nothing matches “${query}”`}>Try a shorter word, or clear the search.</EmptyState>
        )}
        {groups.length > 0 && (
          <div role="listbox" id={listId} aria-label="Tools">
            {groups.map((g) => (
              <div key={g.key} role="group" className="picker-group" aria-label={g.label}>
                <div className="picker-group-title">
                  {g.label} <span className="muted">{g.tools.length}</span>
                </div>
                <div className="picker-list">
                  {g.tools.map((t) => {
                    const i = indexOf.get(t)!;
                    const classes = [
                      "picker-item",
                      t.tool_id === selectedId && "picker-item-active",
                      i === lit && "picker-item-highlight",
                    ];
                    // A button for the click, an option for the list: out of
                    // the Tab order (the search has the keyboard).
                    return (
                      <button
                        key={t.tool_id}
                        type="button"
                        role="option"
                        tabIndex={-1}
                        id={itemId(i)}
                        data-index={i}
                        className={classes.filter(Boolean).join(" ")}
                        aria-selected={i === lit}
                        aria-current={t.tool_id === selectedId ? "true" : undefined}
                        onClick={() => onSelect(t)}
                        title={[t.name, t.tool_id, t.description].filter((w) => w !== "").join("\n")}
                      >
                        <span className="picker-item-head">
                          <span className="picker-item-name">{t.name}</span>
                          <ToolBadges tool={t} />
                        </span>
                        <code className="picker-item-id">{t.tool_id}</code>
                      </button>
                    );
                  })}
                </div>
              </div>
            ))}
          </div>
        )}
      </div>
    </div>
  );
}
