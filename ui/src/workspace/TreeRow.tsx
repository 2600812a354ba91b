// One row of the workspace tree. Memoized: moving the selection or the
// cursor re-renders the two rows whose state changed, not the whole view.

import { memo } from "react";
import type { Row } from "./fileTree";

const INDENT = 16;

type Props = {
  id: string;
  row: Row;
  /** Offset from the top of the list (the virtualizer's). */
  start: number;
  height: number;
  /** The file shown in the pane. */
  selected: boolean;
  /** The keyboard cursor. */
  active: boolean;
  onActivate: (row: Row) => void;
};

export const TreeRow = memo(function TreeRow({ id, row, start, height, selected, active, onActivate }: Props) {
  const { node } = row;
  const folder = node.kind === "folder";
  const classes = ["tree-row", folder ? "tree-folder" : "file-item"];
  if (node.changed) classes.push(folder ? "tree-folder-changed" : "file-item-changed");
  if (selected) classes.push("file-item-selected");
  if (active) classes.push("tree-row-active");
  return (
    <div
      id={id}
      role="treeitem"
      aria-level={node.depth + 1}
      aria-posinset={row.pos}
      aria-setsize={row.size}
      aria-expanded={folder ? row.open : undefined}
      aria-selected={folder ? undefined : selected}
      className={classes.join(" ")}
      // The full path, for the tooltip and for whoever reads the DOM (the E2E).
      title={node.path}
      data-path={folder ? undefined : node.path}
      data-folder={folder ? node.path : undefined}
      style={{ height, transform: `translateY(${start}px)`, paddingLeft: 6 + node.depth * INDENT }}
      onClick={() => onActivate(row)}
    >
      {/* Drawn by CSS from aria-expanded, so a row's text is only its name. */}
      <span className="tree-twisty" aria-hidden="true" />
      <span className={folder ? "tree-icon tree-icon-folder" : "tree-icon tree-icon-file"} aria-hidden="true" />
      <span className="tree-name">{node.name}</span>
      {node.changed && (
        <span className="tree-mark" title={folder ? "Something in here changed in this step" : "Changed in this step"}>
          <span className="tree-hidden-text">{folder ? " (has changes)" : " (changed)"}</span>
        </span>
      )}
      {folder && (
        <span className="tree-count" title={`${node.count.toLocaleString()} file${node.count === 1 ? "" : "s"}`}>
          {node.count.toLocaleString()}
          <span className="tree-hidden-text"> files</span>
        </span>
      )}
    </div>
  );
});
