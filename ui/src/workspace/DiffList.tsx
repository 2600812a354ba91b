// How a difference between two workspace states is shown, wherever one is:
// a step's changes (calls/NodeChanges) and the Workspace tab's Compare panel.

import { useState, type ReactNode } from "react";
import type { ModifiedFile, WorkspaceDiff } from "../bindings";

/** Entries drawn before "Show all": comparing far-apart nodes can list thousands. */
const FIRST = 200;

/** Unified-diff line → style: headers and hunk lines are context. */
function diffClass(line: string): string {
  if (line.startsWith("+++") || line.startsWith("---") || line.startsWith("@@")) return "diff-gap";
  if (line.startsWith("+")) return "diff-add";
  if (line.startsWith("-")) return "diff-del";
  return "diff-ctx";
}

/** A unified diff, line by line. */
export function UnifiedDiff({ diff }: { diff: string }) {
  return (
    <pre className="diff-view">
      {diff.split("\n").map((line, i) => (
        <span key={i} className={diffClass(line)}>
          {`${line}\n`}
        </span>
      ))}
    </pre>
  );
}

/** ": 0644 → 0600 (now private)", or nothing when the mode is not known. */
function modeChange(m: ModifiedFile): string {
  if (m.mode_from == null || m.mode_to == null) return "";
  const octal = (x: number) => x.toString(8).padStart(4, "0");
  const group = (x: number) => (x & 0o077) !== 0;
  const exec = (x: number) => (x & 0o100) !== 0;
  const words: string[] = [];
  if (group(m.mode_from) && !group(m.mode_to)) words.push("now private");
  if (!group(m.mode_from) && group(m.mode_to)) words.push("no longer private");
  if (!exec(m.mode_from) && exec(m.mode_to)) words.push("now executable");
  if (exec(m.mode_from) && !exec(m.mode_to)) words.push("no longer executable");
  return `: ${octal(m.mode_from)} → ${octal(m.mode_to)}${words.length > 0 ? ` (${words.join(", ")})` : ""}`;
}

/** Why a modified file has no diff to show, if it has none. */
function noDiffReason(m: ModifiedFile): string | null {
  if (m.binary === true) return "binary";
  if (m.too_large === true) return "too large to show a diff";
  if (m.mode_only === true) return `only its mode changed${modeChange(m)}`;
  return null;
}

export function diffSize(d: WorkspaceDiff): number {
  return d.added.length + d.removed.length + d.modified.length;
}

/** "2 added · 1 removed · 3 changed" (only the non-zero ones). */
export function diffSummary(d: WorkspaceDiff): string {
  const bits = [
    d.added.length > 0 && `${d.added.length.toLocaleString()} added`,
    d.removed.length > 0 && `${d.removed.length.toLocaleString()} removed`,
    d.modified.length > 0 && `${d.modified.length.toLocaleString()} changed`,
  ].filter((b): b is string => typeof b === "string");
  return bits.length > 0 ? bits.join(" · ") : "no files differ";
}

/**
 * Added, removed and changed files, each changed text file with its
 * unified diff and a binary one marked "binary". `actions` adds buttons
 * after a path (NodeChanges' Restore).
 */
export function DiffList({
  diff,
  label = "Changed files",
  actions,
}: {
  diff: WorkspaceDiff;
  label?: string;
  actions?: (path: string) => ReactNode;
}) {
  const [all, setAll] = useState(false);
  const total = diffSize(diff);
  // The first FIRST paths in this order (added, removed, changed), or all.
  const limit = all ? Infinity : FIRST;
  const added = diff.added.slice(0, limit);
  const removed = diff.removed.slice(0, Math.max(0, limit - added.length));
  const modified = diff.modified.slice(0, Math.max(0, limit - added.length - removed.length));
  const hidden = total - added.length - removed.length - modified.length;
  return (
    <>
      <ul className="change-list" aria-label={label}>
        {added.map((p) => (
          <li key={`+${p}`}>
            <span className="change change-add">added</span> <code>{p}</code> {actions?.(p)}
          </li>
        ))}
        {removed.map((p) => (
          <li key={`-${p}`}>
            <span className="change change-del">removed</span> <code>{p}</code> {actions?.(p)}
          </li>
        ))}
        {modified.map((m) => {
          const reason = noDiffReason(m);
          return (
            <li key={`~${m.path}`}>
              <span className="change">changed</span> <code>{m.path}</code> {actions?.(m.path)}
              {reason !== null && <span className="muted small"> ({reason})</span>}
              {typeof m.diff === "string" && <UnifiedDiff diff={m.diff} />}
            </li>
          );
        })}
      </ul>
      {hidden > 0 && (
        <button type="button" className="btn btn-small" onClick={() => setAll(true)}>
          Show all {total.toLocaleString()} files ({hidden.toLocaleString()} more)
        </button>
      )}
    </>
  );
}
