import { api } from "../api";
import { ConfirmDialog } from "../components/ConfirmDialog";
import { ErrorBox, Spinner } from "../components/feedback";
import { useLoad } from "../lib/useLoad";
import { UnifiedDiff } from "../workspace/DiffList";

/** The diff of an edit, shown before it is saved as a new node (the core's diff, as Compare shows it). */
export function SaveDialog({
  path,
  before,
  after,
  onSave,
  onCancel,
  where = "this call",
}: {
  path: string;
  /** What the edit node goes after, in words. */
  where?: string;
  before: string;
  after: string;
  onSave: () => void;
  onCancel: () => void;
}) {
  const [change] = useLoad(() => api.diffText(path, before, after), JSON.stringify([path, before, after]));
  return (
    <ConfirmDialog title={`Save ${path}?`} confirmLabel="Save" onConfirm={onSave} onCancel={onCancel}>
      {change.state === "error" ? (
        <ErrorBox title="Could not compute the changes." error={change.error} />
      ) : change.data === null ? (
        <Spinner label="Comparing…" />
      ) : (
        <>
          <p>
            +{change.data.added} −{change.data.removed} lines. The change is saved as a new edit step after {where};
            later steps of the chat stay as they are.
          </p>
          <div aria-label="Changes">
            <UnifiedDiff diff={change.data.unified} />
          </div>
        </>
      )}
    </ConfirmDialog>
  );
}
