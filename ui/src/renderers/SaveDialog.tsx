import { ConfirmDialog } from "../components/ConfirmDialog";
import { hunks, lineDiff } from "../lib/lineDiff";

/** The diff of an edit, shown before it is saved as a new node. */
export function SaveDialog({
  path,
  before,
  after,
  onSave,
  onCancel,
}: {
  path: string;
  before: string;
  after: string;
  onSave: () => void;
  onCancel: () => void;
}) {
  const lines = lineDiff(before, after);
  const added = lines.filter((l) => l.op === "+").length;
  const removed = lines.filter((l) => l.op === "-").length;
  return (
    <ConfirmDialog title={`Save ${path}?`} confirmLabel="Save" onConfirm={onSave} onCancel={onCancel}>
      <p>
        +{added} −{removed} lines. The change is saved as a new edit node after this call; later steps of the chat stay
        as they are.
      </p>
      <pre className="diff-view" aria-label="Changes">
        {hunks(lines).map((l, i) =>
          l === null ? (
            <span key={i} className="diff-gap">
              {"⋯\n"}
            </span>
          ) : (
            <span key={i} className={l.op === "+" ? "diff-add" : l.op === "-" ? "diff-del" : "diff-ctx"}>
              {`${l.op} ${l.text}\n`}
            </span>
          ),
        )}
      </pre>
    </ConfirmDialog>
  );
}
