// The workspace tree on screen: which folders are open, the keyboard cursor,
// and a virtualized list so a 10,000-file workspace draws only the rows in
// view. The tree itself is built elsewhere (fileTree.ts); rows are TreeRow.

import {
  defaultRangeExtractor,
  observeElementRect,
  useVirtualizer,
  type Range,
  type Rect,
  type Virtualizer,
} from "@tanstack/react-virtual";
import { useCallback, useId, useLayoutEffect, useMemo, useRef, useState, type KeyboardEvent } from "react";
import { ancestorsOf, visibleRows, type Row, type Tree } from "./fileTree";
import { TreeRow } from "./TreeRow";

export const ROW_HEIGHT = 26;
/** Up to this many files every folder starts open; above, all start closed. */
const OPEN_ALL_UP_TO = 300;
// With no layout (a hidden tab, or jsdom in tests) the scroller measures 0
// high and would draw nothing: assume a screenful until it has a real size.
const NO_LAYOUT: Rect = { width: 320, height: 640 };

function observeRect(instance: Virtualizer<HTMLDivElement, Element>, cb: (rect: Rect) => void) {
  return observeElementRect(instance, (rect) => cb(rect.height > 0 ? rect : NO_LAYOUT));
}

type Open = ReadonlyMap<string, boolean>;

/** `open` with every folder above `path` open. */
function revealIn(open: Open, path: string | null): Open {
  if (path === null) return open;
  const missing = ancestorsOf(path).filter((f) => open.get(f) !== true);
  if (missing.length === 0) return open;
  const next = new Map(open);
  for (const f of missing) next.set(f, true);
  return next;
}

/**
 * The files as a tree: click or Enter opens a file, click or Enter toggles
 * a folder; ↑/↓ move, ←/→ close/open (or go to the parent/first child),
 * Home/End, PageUp/PageDown. Focus stays on the tree and the cursor row is
 * `aria-activedescendant`, so rows can come and go as it scrolls.
 */
export function FileTree({
  tree,
  selected,
  onSelect,
}: {
  tree: Tree;
  selected: string | null;
  onSelect: (path: string) => void;
}) {
  const [open, setOpen] = useState<Open>(() => revealIn(new Map(), selected));
  const [cursor, setCursor] = useState<string | null>(selected);
  // A new manifest (a run, an upload, a switch) keeps what the person
  // opened and closed, and opens the way to the file they are looking at.
  const [shownTree, setShownTree] = useState(tree);
  if (shownTree !== tree) {
    setShownTree(tree);
    setOpen((o) => revealIn(o, selected));
  }

  const openByDefault = tree.root.count <= OPEN_ALL_UP_TO;
  const rows = useMemo(() => visibleRows(tree, (p) => open.get(p) ?? openByDefault), [tree, open, openByDefault]);
  const indexOf = useMemo(() => new Map(rows.map((r, i) => [r.node.path, i])), [rows]);
  const cursorIndex =
    (cursor !== null ? indexOf.get(cursor) : undefined) ?? (selected !== null ? indexOf.get(selected) : undefined) ?? 0;

  const scroller = useRef<HTMLDivElement>(null);
  // Stable per row list: a new key function makes the virtualizer re-measure every row.
  const itemKey = useCallback((i: number) => rows[i]?.node.path ?? i, [rows]);
  // eslint-disable-next-line react-hooks/incompatible-library -- only says React Compiler would skip this component; the app is not built with it
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => ROW_HEIGHT,
    getItemKey: itemKey,
    overscan: 8,
    // The cursor row is always drawn, so aria-activedescendant names a real
    // element even after the mouse wheel scrolled it away.
    rangeExtractor: (range: Range) => {
      const shown = defaultRangeExtractor(range);
      if (rows.length === 0 || shown.includes(cursorIndex)) return shown;
      return [...shown, cursorIndex].sort((a, b) => a - b);
    },
    observeElementRect: observeRect,
    useFlushSync: false,
  });

  const setFolder = useCallback((path: string, to: boolean) => {
    setOpen((o) => {
      const next = new Map(o);
      next.set(path, to);
      return next;
    });
  }, []);

  // Rows get one stable handler (a row re-renders only when its own props
  // change, not on every selection); it reads the latest state from a ref,
  // brought up to date when a render commits (not during it).
  const latest = useRef({ onSelect, setFolder });
  useLayoutEffect(() => {
    latest.current = { onSelect, setFolder };
  });
  const activate = useCallback((row: Row) => {
    setCursor(row.node.path);
    if (row.node.kind === "file") latest.current.onSelect(row.node.path);
    else latest.current.setFolder(row.node.path, !row.open);
  }, []);

  const moveTo = (index: number) => {
    const row = rows[Math.max(0, Math.min(rows.length - 1, index))];
    if (row === undefined) return;
    setCursor(row.node.path);
    virtualizer.scrollToIndex(rows.indexOf(row), { align: "auto" });
  };

  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    // Alt+←/→ and the other modified keys are the app's shortcuts.
    if (e.altKey || e.ctrlKey || e.metaKey || rows.length === 0) return;
    const row = rows[cursorIndex]!;
    const page = Math.max(1, Math.floor((scroller.current?.clientHeight || NO_LAYOUT.height) / ROW_HEIGHT) - 1);
    const folder = row.node.kind === "folder";
    switch (e.key) {
      case "ArrowDown":
        moveTo(cursorIndex + 1);
        break;
      case "ArrowUp":
        moveTo(cursorIndex - 1);
        break;
      case "PageDown":
        moveTo(cursorIndex + page);
        break;
      case "PageUp":
        moveTo(cursorIndex - page);
        break;
      case "Home":
        moveTo(0);
        break;
      case "End":
        moveTo(rows.length - 1);
        break;
      case "ArrowRight":
        if (folder && !row.open) setFolder(row.node.path, true);
        else if (folder && rows[cursorIndex + 1]?.parent === cursorIndex) moveTo(cursorIndex + 1);
        break;
      case "ArrowLeft":
        if (folder && row.open) setFolder(row.node.path, false);
        else if (row.parent >= 0) moveTo(row.parent);
        break;
      case "Enter":
      case " ":
        activate(row);
        break;
      default:
        return;
    }
    e.preventDefault();
  };

  const idBase = useId();
  const rowId = (i: number) => `${idBase}-row-${i}`;
  return (
    <div
      ref={scroller}
      className="file-tree"
      role="tree"
      aria-label="Workspace files"
      tabIndex={0}
      aria-activedescendant={rows.length > 0 ? rowId(cursorIndex) : undefined}
      onKeyDown={onKeyDown}
    >
      <div className="file-tree-rows" style={{ height: virtualizer.getTotalSize() }}>
        {virtualizer.getVirtualItems().map((item) => {
          const row = rows[item.index]!;
          return (
            <TreeRow
              key={item.key}
              id={rowId(item.index)}
              row={row}
              start={item.start}
              height={ROW_HEIGHT}
              selected={row.node.path === selected && row.node.kind === "file"}
              active={item.index === cursorIndex}
              onActivate={activate}
            />
          );
        })}
      </div>
    </div>
  );
}
