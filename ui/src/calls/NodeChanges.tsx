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
        out.changed
          ? removedHere.has(path)
            ? `${path} is removed from the current workspace (a new edit step).`
            : `${path} is back as it was after this step (a new edit step).`
          : `${path} is already like that.`,
      );
      onRestored();
    }, setError);
  };
  // Bringing back a file this step removed means removing it from the current workspace.
  const removedHere = new Set(d.removed);
  const restoreButton = (path: string) => {
    const label = removedHere.has(path) ? "Remove from current" : "Restore this version";
    return (
      <button
        type="button"
        className="btn btn-small btn-ghost"
        aria-label={`${label}: ${path}`}
        title={
          removedHere.has(path)
            ? "This step removed the file: remove it from the current workspace too (a new edit step)"
            : "Bring the file as it was after this step into the current workspace (a new edit step)"
        }
        onClick={() => restore(path)}
      >
        {label}
      </button>
    );
  };

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
