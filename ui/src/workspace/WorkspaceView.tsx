import { useEffect, useMemo, useRef, useState } from "react";
import { api } from "../api";
import type { ManifestSource, WorkspaceManifest } from "../bindings";
import { branchText, chatPosition, stepText } from "../calls/position";
import type { Chats } from "../chats/useChats";
import { EmptyState, ErrorBox, Notice, Spinner } from "../components/feedback";
import { formatBytes } from "../lib/format";
import { useLoad } from "../lib/useLoad";
import type { Save } from "../renderers/SaveControls";
import { useBundleDrop } from "../toolsets/useBundleDrop";
import { ComparePanel } from "./ComparePanel";
import { arrivedManifest, manifestOf, treeOf } from "./manifests";
import { FileTree } from "./FileTree";
import { FileView } from "./FileView";

type Status = { tone: "info" | "success" | "warning"; text: string } | null;

const SOURCE: Record<ManifestSource, string> = {
  tool_run: "a tool run",
  user_upload: "an upload",
  edit: "an edit",
  branch: "a branch",
  empty: "the start",
};

/**
 * The active node's files: browse, view and edit them (Save… records an
 * edit node, as in a call's card), compare nodes, drop files in, export,
 * open the folder. Everything shown belongs to the selected chat: another
 * chat starts from nothing, and a read or an action of the chat left
 * behind never lands here.
 */
export function WorkspaceView({ chats, active }: { chats: Chats; active: boolean }) {
  const chatId = chats.selectedId;
  const [nonce, setNonce] = useState(0);
  // Reloaded each time the tab is shown and after every change made here.
  // After a switch the chat says where it is now: that manifest may be read
  // already (the switch started reading it while the workspace moved).
  // The hint holds only when the chat's move is the newest reason to read
  // (a reload of this tab's own, like an upload, reads the active state),
  // and only in the chat it was said for.
  const [reason, setReason] = useState({ chatId, nonce, revision: chats.revision, hint: null as string | null });
  let why = reason;
  if (reason.chatId !== chatId) {
    why = { chatId, nonce, revision: chats.revision, hint: null };
  } else if (reason.revision !== chats.revision) {
    why = { chatId, nonce, revision: chats.revision, hint: chats.activeManifest?.manifestId ?? null };
  } else if (reason.nonce !== nonce) {
    why = { chatId, nonce, revision: chats.revision, hint: null };
  }
  if (why !== reason) setReason(why);
  // A checkout under way: its files, as soon as they are read.
  const hinted = chats.showing?.chatId === chatId ? chats.showing.manifestId : why.hint;
  const [load, reload] = useLoad<WorkspaceManifest | null>(
    async () =>
      chatId === null ? null : hinted !== null ? manifestOf(chatId, hinted) : api.getWorkspaceManifest(chatId, null),
    `ws-${chatId ?? "none"}-${nonce}-${chats.revision}-${hinted ?? ""}`,
    chatId,
  );
  // Where the chat is (title · branch · step), and the node an edit goes after.
  const [nodes] = useLoad(
    async () => (chatId === null ? null : chats.readTree(chatId)),
    `tree-${chatId ?? "none"}-${nonce}-${chats.revision}`,
    chatId,
  );
  const position = useMemo(
    () => (chatId === null || nodes.data == null ? null : chatPosition(chatId, nodes.data)),
    [chatId, nodes.data],
  );
  // The steps after the start: Compare needs two of them.
  const steps = nodes.data == null ? null : Math.max(0, nodes.data.length - 1);
  const [selected, setSelected] = useState<string | null>(null);
  const [comparing, setComparing] = useState(false);
  const [busy, setBusy] = useState<string | null>(null);
  const [status, setStatus] = useState<Status>(null);
  const [error, setError] = useState<{ title: string; error: unknown } | null>(null);
  // Another chat: its own files, nothing chosen, nothing to report yet. An
  // action still under way for the chat left behind reports nowhere (a
  // chat made by this view's own upload is no switch: it reports here).
  const shownRef = useRef(chatId);
  useEffect(() => {
    shownRef.current = chatId;
  }, [chatId]);
  const [shownChat, setShownChat] = useState(chatId);
  if (shownChat !== chatId) {
    setShownChat(chatId);
    setSelected(null);
    setComparing(false);
    if (shownChat !== null) {
      setStatus(null);
      setError(null);
      setBusy(null);
    }
  }
  // What happened here is news only until the person looks elsewhere.
  // Read again when the tab comes back (a run or a switch may have moved
  // the workspace); hiding it reads nothing.
  const [wasActive, setWasActive] = useState(active);
  if (wasActive !== active) {
    setWasActive(active);
    if (!active) {
      setStatus(null);
      setError(null);
    } else {
      setNonce((n) => n + 1);
    }
  }

  /** Runs an action of this view; what it reports goes nowhere once another chat is shown. */
  const act = async (what: string, failed: string, f: (progress: (text: string) => void) => Promise<Status>) => {
    const started = shownRef.current;
    const here = () => started === null || shownRef.current === started;
    setBusy(what);
    setError(null);
    setStatus(null);
    try {
      const out = await f((text) => {
        if (here()) setBusy(text);
      });
      if (here()) setStatus(out);
    } catch (e) {
      if (here()) setError({ title: failed, error: e });
    } finally {
      if (here()) setBusy(null);
    }
  };

  const upload = (paths: string[]) =>
    void act("Adding files…", "The files were not added.", async (progress) => {
      const id = await chats.ensure();
      const out = await api.uploadFiles(id, paths, "", (p) =>
        progress(`Adding files… ${p.files_done} file${p.files_done === 1 ? "" : "s"} (${formatBytes(p.bytes_done)})`),
      );
      // Both in one batch: read here at once, and tell the other views.
      setNonce((n) => n + 1);
      chats.moved();
      const names = paths.map((p) => p.split(/[\\/]/).filter(Boolean).at(-1) ?? p);
      if (out.changed)
        chats.nameAfter(id, names.length === 1 ? `Upload: ${names[0]}` : `Upload: ${names.length} items`);
      const warn = out.warnings.length > 0 ? ` Skipped: ${out.warnings.join("; ")}.` : "";
      return {
        tone: out.warnings.length > 0 ? "warning" : "success",
        text: out.changed
          ? `Added as a new upload step: ${out.added} new, ${out.modified} changed.${warn}`
          : `Nothing changed: the workspace already had these files.${warn}`,
      };
    });
  const over = useBundleDrop(active, upload);

  const exportTo = (zip: boolean) =>
    void act("Exporting…", "Not exported.", async () => {
      if (chatId === null) return null;
      const path = await api.pickWorkspaceExportPath(zip ? "workspace.zip" : "workspace", zip);
      if (path === null) return null;
      // What is shown: the state a jump goes to may not be the folder's yet.
      const out = await api.exportWorkspace(chatId, manifestId, path);
      const n = `${out.files} file${out.files === 1 ? "" : "s"}`;
      return { tone: "success", text: `Exported ${n} (${formatBytes(out.bytes)}) to ${out.path}.` };
    });

  // An older step is shown: back to the branch's newest step (the core moves the workspace).
  const returnToLatest = (latestId: string) =>
    void act("Bringing the latest step back…", "Could not return to the latest step.", async () => {
      if (chatId === null) return null;
      const chat = await api.checkout(chatId, latestId);
      chats.moved(chat.active_manifest_id);
      return null;
    });

  const openFolder = () =>
    void act("", "The folder did not open in the file manager.", async () => {
      if (chatId !== null) await api.openWorkspaceFolder(chatId);
      return null;
    });

  // A switch's manifest already read (prefetched while the workspace
  // moved): shown in this very render, not after another read's round trip.
  const ready = chatId !== null && hinted !== null ? arrivedManifest(chatId, hinted) : null;
  const read = ready ?? load.data;
  // Belt and braces: a manifest of another chat is never shown here.
  const manifest = read !== null && read.chat_id === chatId ? read : null;
  // Built once per manifest id (manifests never change, and a reload of the
  // same node reuses it), so selecting a file or opening a folder never
  // walks 10,000 paths again.
  const manifestId = manifest?.id ?? null;
  // eslint-disable-next-line react-hooks/exhaustive-deps -- keyed by the id: a manifest never changes
  const tree = useMemo(() => (manifest === null ? null : treeOf(manifest)), [manifestId]);
  const fileCount = tree?.root.count ?? 0;
  const title = chats.load.data?.find((c) => c.id === chatId)?.title ?? null;
  // A jump under way (the map's): its files are shown, the folder and the
  // header's step are not there yet, so nothing acts on either meanwhile.
  const moving = chats.showing?.chatId === chatId;
  // Edits go after the step whose files are shown.
  const at =
    !moving && position !== null && manifest !== null && position.manifestId === manifest.id
      ? position.currentId
      : null;
  const saveTo = (path: string): Save | null =>
    chatId === null || at === null ? null : (text) => api.saveEdit(chatId, at, [{ op: "write", path, text }]);

  return (
    <div className={over ? "workspace-view drop-over" : "workspace-view"} data-testid="workspace-view">
      <header className="page-header">
        <div>
          <h1>Workspace</h1>
          {chatId !== null && (
            <p className="workspace-where" aria-label="Where you are">
              <strong className="workspace-chat" title={title ?? undefined}>
                {title ?? "This chat"}
              </strong>
              {position !== null && (
                <>
                  {" · "}
                  {branchText(position)}
                  {" · "}
                  <span className={position.behind ? "warning-text" : undefined}>{stepText(position)}</span>
                  {position.behind && (
                    <>
                      {" "}
                      <button
                        type="button"
                        className="btn btn-small btn-ghost"
                        disabled={busy !== null || moving}
                        title="Bring back the newest step of this branch; the next run then continues it"
                        onClick={() => returnToLatest(position.latestId)}
                      >
                        Return to latest
                      </button>
                    </>
                  )}
                </>
              )}
            </p>
          )}
          <p className="muted">
            The files at this step. Edit a text file and Save… to record it as a new step. Drop files or folders here to
            add them.
          </p>
        </div>
        <div className="header-actions">
          <button
            type="button"
            className="btn"
            disabled={chatId === null || (steps !== null && steps < 2 && !comparing)}
            title={
              steps !== null && steps < 2
                ? `Compare needs two steps: this chat has ${steps === 0 ? "none" : "one"} yet`
                : "Compare the files of two steps"
            }
            aria-expanded={comparing}
            onClick={() => setComparing((c) => !c)}
          >
            Compare…
          </button>
          <button
            type="button"
            className="btn"
            disabled={chatId === null || busy !== null || moving}
            onClick={openFolder}
          >
            Open folder
          </button>
          <button
            type="button"
            className="btn"
            disabled={chatId === null || fileCount === 0 || busy !== null || moving}
            onClick={() => exportTo(false)}
          >
            Export folder…
          </button>
          <button
            type="button"
            className="btn"
            disabled={chatId === null || fileCount === 0 || busy !== null || moving}
            onClick={() => exportTo(true)}
          >
            Export ZIP…
          </button>
        </div>
      </header>
      {over && (
        <div className="drop-hint" aria-live="polite">
          Drop to add to the workspace
        </div>
      )}
      {comparing && chatId !== null && (
        <ComparePanel chatId={chatId} revision={`${nonce}-${chats.revision}`} onClose={() => setComparing(false)} />
      )}
      {busy !== null && busy !== "" && <Spinner label={busy} />}
      {status !== null && <Notice tone={status.tone}>{status.text}</Notice>}
      {error !== null && <ErrorBox error={error.error} title={error.title} onDismiss={() => setError(null)} />}
      {load.state === "error" && (
        <ErrorBox
          error={load.error}
          title="The workspace could not be read."
          onRetry={() => (hinted !== null ? setNonce((n) => n + 1) : reload())}
        />
      )}
      {chatId === null && (
        <EmptyState title="No chat yet">Run a tool or drop files here: either starts a chat.</EmptyState>
      )}
      {chatId !== null && manifest === null && load.state === "loading" && <Spinner label="Reading the workspace…" />}
      {manifest !== null && fileCount === 0 && (
        <EmptyState title="The workspace is empty">Drop files here, or run a tool that writes some.</EmptyState>
      )}
      {manifest !== null && tree !== null && fileCount > 0 && chatId !== null && (
        <div className="workspace-body">
          <FileTree key={chatId} tree={tree} selected={selected} onSelect={setSelected} />
          <div className="file-pane">
            {selected !== null && manifest.files[selected] !== undefined ? (
              <FileView
                key={`${manifest.id}:${selected}`}
                chatId={chatId}
                manifestId={manifest.id}
                path={selected}
                save={saveTo(selected)}
              />
            ) : (
              <p className="muted">Choose a file to see it (and edit it, if it is text) as it is at this step.</p>
            )}
          </div>
        </div>
      )}
      {manifest !== null && (
        <p className="muted small">
          {manifest.file_count.toLocaleString()} {manifest.file_count === 1 ? "file" : "files"},{" "}
          {formatBytes(manifest.total_size)} · this step: {SOURCE[manifest.source]}
          {Object.keys(manifest.changes).length > 0 && fileCount > 0 && (
            <>
              {" · "}
              <span className="tree-legend">
                <span className="tree-mark" aria-hidden="true" /> changed in this step
              </span>
            </>
          )}
        </p>
      )}
    </div>
  );
}
