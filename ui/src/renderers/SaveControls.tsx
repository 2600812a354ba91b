import { useState } from "react";
import { api } from "../api";
import type { SnapshotOutcome, ToolCallRecord } from "../bindings";
import { str, type JsonObject } from "../lib/json";
import { ErrorBox, Notice } from "../components/feedback";
import { useMoved } from "../chats/moved";
import { SaveDialog } from "./SaveDialog";

/** Saves an editor's text as an edit node after the call it belongs to. */
export type Save = (text: string) => Promise<SnapshotOutcome>;

/** Only a view of a workspace file saves: as an edit node after its call. */
export function saverFor(call: ToolCallRecord, config: JsonObject): Save | null {
  const file = str(config, "file");
  if (file === null || call.node_id === null) return null;
  const at = call.node_id;
  return (text) => api.saveEdit(call.chat_id, at, [{ op: "write", path: file, text }]);
}

/**
 * The editing state of an editable view: `base` is what the file holds
 * (the call's version until a save), `draft` what the editor shows. Gives
 * the renderer bar's controls (status, Revert, Save…) and, below the bar,
 * the outcome; the diff dialog opens before anything is saved.
 */
export function useSaveControls({
  path,
  text,
  draft,
  setDraft,
  save,
  after = "this call",
}: {
  path: string | null;
  text: string;
  draft: string;
  setDraft: (t: string) => void;
  save: Save | null;
  /** What the edit node goes after, in words. */
  after?: string;
}) {
  const moved = useMoved();
  const [base, setBase] = useState(text);
  const [asking, setAsking] = useState(false);
  const [saved, setSaved] = useState<SnapshotOutcome | null>(null);
  const [error, setError] = useState<unknown>(null);
  const dirty = draft !== base;
  const canSave = save !== null && path !== null;

  const bar = dirty && (
    <>
      <span className="small warning-text">
        {canSave ? "Not saved yet." : "Edited here only: this view has no workspace file to save to."}
      </span>
      <button type="button" className="btn btn-small btn-ghost" onClick={() => setDraft(base)}>
        Revert
      </button>
      {canSave && (
        <button type="button" className="btn btn-small btn-primary" onClick={() => setAsking(true)}>
          Save…
        </button>
      )}
    </>
  );

  const below = (
    <>
      {saved !== null && !dirty && (
        <Notice tone="success">
          {saved.changed
            ? `Saved as a new edit step after ${after} (a new branch if the chat had gone on from here).`
            : "Nothing to save: the file already had this text."}
        </Notice>
      )}
      {error !== null && <ErrorBox error={error} title="Not saved." onDismiss={() => setError(null)} />}
      {asking && canSave && (
        <SaveDialog
          path={path}
          where={after}
          before={base}
          after={draft}
          onCancel={() => setAsking(false)}
          onSave={() => {
            setAsking(false);
            setError(null);
            const text = draft;
            save(text).then((out) => {
              setSaved(out);
              setBase(text);
              if (out.changed) moved();
            }, setError);
          }}
        />
      )}
    </>
  );
  return { bar, below };
}
