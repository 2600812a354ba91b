import { api } from "../api";
import type { WorkspaceFile } from "../bindings";
import { ErrorBox, Notice, Spinner } from "../components/feedback";
import { formatBytes } from "../lib/format";
import { useLoad } from "../lib/useLoad";
import { CodeEditor } from "../renderers/CodeEditor";
import { extensionOf, languageFor } from "../renderers/languages";

const IMAGES = new Set(["png", "jpg", "jpeg", "gif", "webp", "svg", "bmp", "ico", "avif"]);

type Shown = { kind: "text"; file: WorkspaceFile } | { kind: "image"; url: string } | { kind: "binary"; file: WorkspaceFile };

/** One file at one node: text in the code view, images as images. */
export function FileView({ chatId, manifestId, path }: { chatId: string; manifestId: string; path: string }) {
  const [load] = useLoad<Shown>(async () => {
    if (IMAGES.has(extensionOf(path).toLowerCase())) {
      return { kind: "image", url: await api.workspaceFileUrl(chatId, path, manifestId) };
    }
    const file = await api.getWorkspaceFile(chatId, path, manifestId);
    return file.text === null ? { kind: "binary", file } : { kind: "text", file };
  }, `${chatId}:${manifestId}:${path}`);
  if (load.state === "error") return <ErrorBox error={load.error} title={`${path} could not be read.`} />;
  if (load.data === null) return <Spinner label="Loading…" />;
  const shown = load.data;
  return (
    <div className="file-view">
      <div className="renderer-bar">
        <code className="renderer-path">{path}</code>
        {shown.kind !== "image" && <span className="muted small">{formatBytes(shown.file.size)}</span>}
      </div>
      {shown.kind === "text" && (
        <CodeEditor text={shown.file.text ?? ""} language={languageFor(null, path)} editable={false} label={path} />
      )}
      {shown.kind === "image" && <img className="image-renderer" alt={path} src={shown.url} />}
      {shown.kind === "binary" && <Notice>A binary file ({formatBytes(shown.file.size)}): export the workspace to open it.</Notice>}
    </div>
  );
}
