import { useState } from "react";
import { api } from "../api";
import type { SnapshotOutcome } from "../bindings";
import { ErrorBox, Notice } from "../components/feedback";
import { bool, str } from "../lib/json";
import { SaveDialog } from "./SaveDialog";
import { CodeEditor } from "./CodeEditor";
import { ContentGate } from "./ContentGate";
import { languageFor } from "./languages";
import type { RendererProps } from "./types";
import { useContent } from "./useContent";

type Save = (text: string) => Promise<SnapshotOutcome>;

function CodeBody({
  text,
  path,
  language,
  editable,
  save,
}: {
  text: string;
  path: string | null;
  language: string | null;
  editable: boolean;
  save: Save | null;
}) {
  const lang = languageFor(language, path);
  const [draft, setDraft] = useState(text);
  // What the file holds now: the call's version until a save.
  const [base, setBase] = useState(text);
  const [asking, setAsking] = useState(false);
  const [saved, setSaved] = useState<SnapshotOutcome | null>(null);
  const [error, setError] = useState<unknown>(null);
  const dirty = editable && draft !== base;
  return (
    <div className="code-renderer">
      <div className="renderer-bar">
        {path !== null && <code className="renderer-path">{path}</code>}
        <span className="muted small">{lang?.name ?? "Plain text"}</span>
        {dirty && (
          <>
            <span className="small warning-text">
              {save === null ? "Edited here only: this view has no workspace file to save to." : "Not saved yet."}
            </span>
            <button type="button" className="btn btn-small btn-ghost" onClick={() => setDraft(base)}>
              Revert
            </button>
            {save !== null && (
              <button type="button" className="btn btn-small btn-primary" onClick={() => setAsking(true)}>
                Save…
              </button>
            )}
          </>
        )}
      </div>
      {saved !== null && !dirty && (
        <Notice tone="success">
          {saved.changed
            ? "Saved as a new edit node after this call (a new branch if the chat had gone on from here)."
            : "Nothing to save: the file already had this text."}
        </Notice>
      )}
      {error !== null && <ErrorBox error={error} title="Not saved." onDismiss={() => setError(null)} />}
      {asking && save !== null && path !== null && (
        <SaveDialog
          path={path}
          before={base}
          after={draft}
          onCancel={() => setAsking(false)}
          onSave={() => {
            setAsking(false);
            setError(null);
            const text = draft;
            save(text).then(
              (out) => {
                setSaved(out);
                setBase(text);
              },
              setError,
            );
          }}
        />
      )}
      <CodeEditor
        text={editable ? draft : text}
        language={lang}
        editable={editable}
        label={path ?? "Tool output"}
        onChange={setDraft}
      />
    </div>
  );
}

export function CodeRenderer({ call, plan, config }: RendererProps) {
  const load = useContent(call, config, plan.manifest_id);
  const file = str(config, "file");
  // Only a view of a workspace file saves, as an edit node after the call.
  const save: Save | null =
    file !== null && call.node_id !== null
      ? (text) => api.saveEdit(call.chat_id, call.node_id, [{ op: "write", path: file, text }])
      : null;
  return (
    <ContentGate load={load}>
      {(text, path) => (
        <CodeBody
          key={text}
          text={text}
          path={path}
          language={str(config, "language")}
          editable={bool(config, "editable")}
          save={save}
        />
      )}
    </ContentGate>
  );
}
