// The file pane of the Workspace tab: one file version shown as what it is.

import { useState, type ReactNode } from "react";
import { api } from "../api";
import type { WorkspaceFile } from "../bindings";
import { ErrorBox, Spinner } from "../components/feedback";
import { baseName, formatBytes } from "../lib/format";
import { useLoad } from "../lib/useLoad";
import { CodeEditor } from "../renderers/CodeEditor";
import { extensionOf, languageFor } from "../renderers/languages";
import { useSaveControls, type Save } from "../renderers/SaveControls";
import { SaveAsButton, SaveAsStatus, useSaveAs } from "./SaveAs";

const IMAGES = new Set(["png", "jpg", "jpeg", "gif", "webp", "svg", "bmp", "ico", "avif"]);

type Shown =
  { kind: "text"; file: WorkspaceFile } | { kind: "image"; url: string } | { kind: "binary"; file: WorkspaceFile };

/**
 * One file at one node: text in the code view (editable when `save` is
 * given: Save… shows the diff, then records an edit node, as in a call's
 * card), images as images, anything else by name and size. Every kind can
 * be saved out ("Save as…").
 */
export function FileView({
  chatId,
  manifestId,
  path,
  save = null,
}: {
  chatId: string;
  manifestId: string;
  path: string;
  save?: Save | null;
}) {
  const [load] = useLoad<Shown>(
    async () => {
      if (IMAGES.has(extensionOf(path).toLowerCase())) {
        return { kind: "image", url: await api.workspaceFileUrl(chatId, path, manifestId) };
      }
      const file = await api.getWorkspaceFile(chatId, path, manifestId);
      return file.text === null ? { kind: "binary", file } : { kind: "text", file };
    },
    `${chatId}:${manifestId}:${path}`,
    chatId,
  );
  const saver = useSaveAs(chatId, manifestId, path);
  if (load.state === "error") return <ErrorBox error={load.error} title={`${path} could not be read.`} />;
  if (load.data === null) return <Spinner label="Loading…" />;
  const shown = load.data;
  if (shown.kind === "text") {
    return (
      <TextFile key={shown.file.sha256} file={shown.file} save={save} saveAs={<SaveAsButton saver={saver} />}>
        <SaveAsStatus saver={saver} />
      </TextFile>
    );
  }
  return (
    <div className="file-view">
      <div className="renderer-bar">
        <code className="renderer-path">{path}</code>
        {shown.kind !== "image" && <span className="muted small">{formatBytes(shown.file.size)}</span>}
        {/* A binary file's card below has the button. */}
        {shown.kind !== "binary" && (
          <span className="file-view-actions">
            <SaveAsButton saver={saver} />
          </span>
        )}
      </div>
      <SaveAsStatus saver={saver} />
      {save !== null && <p className="muted small">Only text files are edited here.</p>}
      {shown.kind === "image" && <img className="image-renderer" alt={path} src={shown.url} />}
      {shown.kind === "binary" && <BinaryFile file={shown.file} saveButton={<SaveAsButton saver={saver} primary />} />}
    </div>
  );
}

/** A text file in the editor; with `save`, edits are saved as an edit node after the current step. */
function TextFile({
  file,
  save,
  saveAs,
  children,
}: {
  file: WorkspaceFile;
  save: Save | null;
  saveAs: ReactNode;
  children: ReactNode;
}) {
  const text = file.text ?? "";
  const [draft, setDraft] = useState(text);
  const { bar, below } = useSaveControls({
    path: file.path,
    text,
    draft,
    setDraft,
    save,
    after: "the current step",
  });
  return (
    <div className="file-view">
      <div className="renderer-bar">
        <code className="renderer-path">{file.path}</code>
        <span className="muted small">{formatBytes(file.size)}</span>
        {save !== null && bar}
        <span className="file-view-actions">{saveAs}</span>
      </div>
      {children}
      {below}
      <CodeEditor
        text={save !== null ? draft : text}
        language={languageFor(null, file.path)}
        editable={save !== null}
        label={file.path}
        onChange={setDraft}
      />
    </div>
  );
}

/** A file Atelier cannot show: what it is, and a way to get it out. */
function BinaryFile({ file, saveButton }: { file: WorkspaceFile; saveButton: ReactNode }) {
  const ext = extensionOf(file.path);
  return (
    <div className="binary-file">
      <span className="binary-file-icon" aria-hidden="true">
        {ext === "" ? "BIN" : ext.slice(0, 4).toUpperCase()}
      </span>
      <div className="binary-file-about">
        <strong className="binary-file-name">{baseName(file.path)}</strong>
        <span className="muted small">
          {formatBytes(file.size)}
          {file.size >= 1024 && ` (${file.size.toLocaleString()} bytes)`} · not text or an image, so it is not shown
          here
        </span>
        <div>{saveButton}</div>
      </div>
    </div>
  );
}
