import { useState } from "react";
import { api } from "../api";
import { ErrorBox, Notice, Spinner } from "../components/feedback";
import { useLoad } from "../lib/useLoad";
import { DiffList } from "../workspace/DiffList";

/**
 * What a step changed in the workspace (its parent's state → its own), with
 * each file's diff, and a way to bring one file back as it was after this
 * step into the current workspace (an edit node on the active branch).
 */
export function NodeChanges({
  chatId,
  from,
  to,
  onRestored,
}: {
  chatId: string;
  from: string;
  to: string;
  onRestored: () => void;
}) {
  const [load] = useLoad(() => api.diffNodes(chatId, from, to), `${chatId}:${from}:${to}`, chatId);
  const [note, setNote] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  if (load.state === "error") return <ErrorBox error={load.error} title="The changes could not be read." />;
  if (load.data === null) return <Spinner label="Comparing…" />;
  const d = load.data;

  const restore = (path: string) => {
    setError(null);
    setNote(null);
    api.restoreFile(chatId, path, to).then((out) => {
      setNote(
        out.changed ? `${path} is back as it was after this step (a new edit node).` : `${path} is already like that.`,
      );
      onRestored();
    }, setError);
  };
  const restoreButton = (path: string) => (
    <button
      type="button"
      className="btn btn-small btn-ghost"
      aria-label={`Restore ${path} as of this step`}
      onClick={() => restore(path)}
    >
      Restore
    </button>
  );

  if (d.added.length + d.removed.length + d.modified.length === 0) {
    return <p className="muted small">This step changed no files.</p>;
  }
  return (
    <div className="node-changes">
      <DiffList diff={d} actions={restoreButton} />
      {note !== null && <Notice tone="success">{note}</Notice>}
      {error !== null && <ErrorBox error={error} title="Not restored." onDismiss={() => setError(null)} />}
    </div>
  );
}
