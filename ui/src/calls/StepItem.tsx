// One step of the active branch: its sibling arrows and "Branch from
// here", the call's card (or an edit's summary), and the files it changed.

import { memo, useState } from "react";
import type { MessageNode, ToolCallRecord } from "../bindings";
import { editCounts } from "../chats/mapLabels";
import { shownStatus } from "../lib/callStatus";
import { CallCard } from "./CallCard";
import { NodeChanges } from "./NodeChanges";
import type { Rerun } from "./rerun";

/** How a button moves the workspace: to a sibling's branch, or back to a step. */
export type Move = "switch" | "checkout";

export type Step = { node: MessageNode; call: ToolCallRecord | null; index: number; siblings: string[] };

function editSummary(node: MessageNode): string {
  const what = node.source === "user_upload" ? "Upload" : "Workspace edit";
  return node.content.some((p) => p.type === "workspace_edit") ? `${what}: ${editCounts(node)}` : what;
}

/** A step's file changes, read only once the person opens them. */
function StepChanges(props: { chatId: string; from: string; to: string; onRestored: () => void }) {
  const [open, setOpen] = useState(false);
  return (
    <details className="step-changes" onToggle={(e) => setOpen(e.currentTarget.open)}>
      <summary>Files changed by this step</summary>
      {open && <NodeChanges {...props} />}
    </details>
  );
}

type Props = {
  step: Step;
  chatId: string;
  isLeaf: boolean;
  locked: boolean;
  lockedTitle: string | undefined;
  move: (how: Move, id: string) => Promise<void>;
  onRerun: Rerun | undefined;
  onRestored: () => void;
  /** A long list is scrolling past: leave the renderer for later. */
  deferBody?: boolean;
};

// Memoized: in a long chat a switch or a run re-renders the list, not
// every card in it.
export const StepItem = memo(function StepItem({
  step,
  chatId,
  isLeaf,
  locked,
  lockedTitle,
  move,
  onRerun,
  onRestored,
  deferBody = false,
}: Props) {
  const { node, call, index, siblings } = step;
  // The files the step changed, at the foot of its card. A denied call ran
  // nothing and changed no file.
  const changes = node.parent_id !== null && (call === null || shownStatus(call) !== "denied") && (
    <StepChanges chatId={chatId} from={node.parent_id} to={node.id} onRestored={onRestored} />
  );
  return (
    <>
      <div className="step-bar">
        {siblings.length > 1 && (
          <span className="siblings" role="group" aria-label="Other versions of this step">
            <button
              type="button"
              className="btn btn-small btn-ghost"
              aria-label="Previous version"
              disabled={locked || index <= 0}
              title={lockedTitle}
              onClick={() => void move("switch", siblings[index - 1]!)}
            >
              ‹
            </button>
            <span className="small">
              {index + 1}/{siblings.length}
            </span>
            <button
              type="button"
              className="btn btn-small btn-ghost"
              aria-label="Next version"
              disabled={locked || index >= siblings.length - 1}
              title={lockedTitle}
              onClick={() => void move("switch", siblings[index + 1]!)}
            >
              ›
            </button>
          </span>
        )}
        {!isLeaf && (
          <button
            type="button"
            className="btn btn-small btn-ghost branch-here"
            disabled={locked}
            title={lockedTitle ?? "Go back to the workspace after this step; the next run starts a new branch here"}
            onClick={() => void move("checkout", node.id)}
          >
            Branch from here
          </button>
        )}
      </div>
      {call !== null ? (
        <CallCard call={call} onRerun={onRerun} deferBody={deferBody} footer={changes} />
      ) : (
        <>
          <p className="edit-node muted">{editSummary(node)}</p>
          {changes}
        </>
      )}
    </>
  );
});
