// The Workspace tab's "Compare…": any two nodes of the chat, picked by a
// readable label, and the files that differ between them with their diffs.

import { useRef, useState } from "react";
import { api } from "../api";
import type { MessageNode, ToolCallRecord } from "../bindings";
import { ErrorBox, Spinner } from "../components/feedback";
import { useMoved } from "../chats/moved";
import { usePanelFocus } from "../lib/focus";
import { useLoad } from "../lib/useLoad";
import { DiffList, diffSize, diffSummary } from "./DiffList";
import { currentNode, nodeChoices, type NodeChoice } from "./nodeLabels";

type Picked = { from: string; to: string };

function NodeSelect({
  label,
  value,
  choices,
  onChange,
}: {
  label: string;
  value: string;
  choices: { active: NodeChoice[]; other: NodeChoice[] };
  onChange: (id: string) => void;
}) {
  const options = (list: NodeChoice[]) =>
    list.map((c) => (
      <option key={c.id} value={c.id}>
        {c.label}
      </option>
    ));
  return (
    <label className="compare-pick">
      <span className="field-label">{label}</span>
      <select value={value} onChange={(e) => onChange(e.target.value)}>
        <optgroup label="Current branch">{options(choices.active)}</optgroup>
        {choices.other.length > 0 && <optgroup label="Other branches">{options(choices.other)}</optgroup>}
      </select>
    </label>
  );
}

/**
 * Brings one file into the current workspace as it is in the "From" node
 * (absent there: removed), as a new edit node.
 */
function RestoreFrom({ chatId, node, path, absent }: { chatId: string; node: string; path: string; absent: boolean }) {
  const moved = useMoved();
  const [state, setState] = useState<{ busy: boolean; note: string | null; error: unknown }>({
    busy: false,
    note: null,
    error: null,
  });
  const restore = () => {
    setState({ busy: true, note: null, error: null });
    api.restoreFile(chatId, path, node).then(
      (out) => {
        setState({
          busy: false,
          note: out.changed
            ? absent
              ? "Removed (a new edit step)."
              : "Restored (a new edit step)."
            : "Already like that.",
          error: null,
        });
        if (out.changed) moved();
      },
      (error: unknown) => setState({ busy: false, note: null, error }),
    );
  };
  return (
    <>
      <button
        type="button"
        className="btn btn-small btn-ghost"
        aria-label={
          absent ? `Remove ${path} from current (it is not in the From step)` : `Restore the From version of ${path}`
        }
        title={
          absent
            ? "The From step does not have this file: remove it from the current workspace (a new edit step)"
            : "Bring this file into the current workspace as it is in the From step (a new edit step)"
        }
        disabled={state.busy}
        onClick={restore}
      >
        {absent ? "Remove from current" : "Restore the “From” version"}
      </button>
      {state.note !== null && <span className="muted small">{state.note}</span>}
      {state.error !== null && <ErrorBox error={state.error} title={`${path} was not restored.`} />}
    </>
  );
}

/** The difference between two nodes, read when either changes. */
function CompareResult({ chatId, from, to }: { chatId: string; from: string; to: string }) {
  const [load, reload] = useLoad(
    () => (from === to ? Promise.resolve(null) : api.diffNodes(chatId, from, to)),
    `${chatId}:${from}:${to}`,
    chatId,
  );
  if (from === to) return <p className="muted">Both sides are the same step: pick another one to compare.</p>;
  if (load.state === "error")
    return <ErrorBox error={load.error} title="The two steps could not be compared." onRetry={reload} />;
  if (load.state === "loading" || load.data === null) return <Spinner label="Comparing…" />;
  const d = load.data;
  // Added going From → To: the From node does not have it.
  const addedInTo = new Set(d.added);
  return (
    <div className="compare-result" aria-live="polite">
      <p className="compare-summary">
        {diffSize(d) === 0 ? "The two steps have the same files." : `${diffSummary(d)}.`}
      </p>
      {diffSize(d) > 0 && (
        <DiffList
          diff={d}
          label="Differences"
          actions={(path) => <RestoreFrom chatId={chatId} node={from} path={path} absent={addedInTo.has(path)} />}
        />
      )}
    </div>
  );
}

/**
 * Two node pickers (by default: the current node's parent → the current
 * node, i.e. what the last step did) and their difference. `revision`
 * changes when the chat moved, so the node list is read again.
 */
export function ComparePanel({ chatId, revision, onClose }: { chatId: string; revision: string; onClose: () => void }) {
  const [load, reload] = useLoad(
    async (): Promise<[MessageNode[], ToolCallRecord[]]> =>
      Promise.all([api.chatTree(chatId), api.listToolCalls(chatId)]),
    `${chatId}:${revision}`,
    chatId,
  );
  const [picked, setPicked] = useState<Picked | null>(null);
  const panel = useRef<HTMLElement>(null);
  usePanelFocus(panel);

  let body;
  if (load.state === "error") {
    body = <ErrorBox error={load.error} title="The chat’s nodes could not be read." onRetry={reload} />;
  } else if (load.data === null) {
    body = <Spinner label="Reading the chat’s nodes…" />;
  } else {
    const [nodes, calls] = load.data;
    const toolOf = new Map(calls.map((c) => [c.id, c.tool_id]));
    const choices = nodeChoices(nodes, toolOf);
    const ids = new Set(nodes.map((n) => n.id));
    const current = currentNode(nodes);
    // A pick that is gone (deleted chat state, another chat) falls back to the default.
    const pair: Picked | null =
      picked !== null && ids.has(picked.from) && ids.has(picked.to)
        ? picked
        : current === null
          ? null
          : { from: current.parent_id ?? current.id, to: current.id };
    body =
      pair === null ? (
        <p className="muted">This chat has no nodes yet.</p>
      ) : (
        <>
          <div className="compare-picks">
            <NodeSelect
              label="From"
              value={pair.from}
              choices={choices}
              onChange={(id) => setPicked({ ...pair, from: id })}
            />
            <button
              type="button"
              className="btn btn-small btn-ghost compare-swap"
              aria-label="Swap the two steps"
              title="Swap"
              onClick={() => setPicked({ from: pair.to, to: pair.from })}
            >
              ⇄
            </button>
            <NodeSelect
              label="To"
              value={pair.to}
              choices={choices}
              onChange={(id) => setPicked({ ...pair, to: id })}
            />
          </div>
          <CompareResult chatId={chatId} from={pair.from} to={pair.to} />
        </>
      );
  }

  return (
    <section
      ref={panel}
      className="panel compare-panel"
      aria-label="Compare two steps"
      onKeyDown={(e) => {
        if (e.key === "Escape") onClose();
      }}
    >
      <div className="compare-head">
        <h2 className="panel-title">Compare two steps</h2>
        <button type="button" className="btn btn-small btn-ghost" onClick={onClose}>
          Close
        </button>
      </div>
      {body}
    </section>
  );
}
