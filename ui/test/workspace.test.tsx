import { act, render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { emit } from "@tauri-apps/api/event";
import { describe, expect, it } from "vitest";
import type { WorkspaceManifest } from "../src/bindings";
import type { Chats } from "../src/chats/useChats";
import { chatsStub, node } from "./fixtures";
import { WorkspaceView } from "../src/workspace/WorkspaceView";
import { argsOf, mockCommands } from "./ipc";

async function settle() {
  for (let i = 0; i < 3; i++) await act(() => new Promise((r) => setTimeout(r, 0)));
}

function chats(selectedId: string | null = "chat-1"): Chats {
  return chatsStub({ selectedId });
}

/** The chats after a move of chat-1 to `manifestId` (revision 1). */
function movedTo(manifestId: string): Chats {
  return { ...chats(), revision: 1, activeManifest: { chatId: "chat-1", manifestId } };
}

function manifest(
  files: Record<string, string>,
  changes: Record<string, string | null> = {},
  over: Partial<WorkspaceManifest> = {},
): WorkspaceManifest {
  return {
    id: "man-1",
    chat_id: "chat-1",
    parent_id: "man-0",
    files,
    executable: [],
    changes,
    created_at: "2026-11-23T06:00:00.000Z",
    source: "tool_run",
    source_ref: null,
    root_tree: "t",
    file_count: Object.keys(files).length,
    total_size: 1234,
    ...over,
  };
}

describe("workspace browser", () => {
  it("shows the active node's files as a tree, marks the ones the last step changed, and shows one", async () => {
    const calls = mockCommands({
      get_workspace_manifest: () =>
        manifest({ "app.py": "aa", "data/chart.png": "bb", "notes.md": "cc" }, { "app.py": "aa", "gone.txt": null }),
      get_workspace_file: () => ({ path: "app.py", size: 9, sha256: "aa", text: "print(1)\n" }),
      workspace_file_url: () => "atelier-render://localhost/0123/chart.png",
    });
    const { container } = render(<WorkspaceView chats={chats()} active />);
    const tree = await screen.findByRole("tree", { name: "Workspace files" });
    // Folders first; a small workspace opens every folder.
    const items = within(tree).getAllByRole("treeitem");
    expect(items.map((r) => r.getAttribute("title"))).toEqual(["data", "data/chart.png", "app.py", "notes.md"]);
    expect(items.map((r) => r.textContent)).toEqual(["data1 files", "chart.png", "app.py (changed)", "notes.md"]);
    expect(items[2]).toHaveClass("file-item-changed");
    expect(argsOf(calls, "get_workspace_manifest")).toEqual([{ chatId: "chat-1", manifestId: null }]);
    expect(screen.getByText(/3 files, 1\.2 KB · this step: a tool run/)).toBeInTheDocument();
    // The key to the dot that marks a changed file.
    expect(screen.getByText(/changed in this step/)).toHaveClass("tree-legend");

    await userEvent.click(items[2]!);
    await waitFor(() => expect(container.querySelector(".cm-content")?.textContent).toBe("print(1)"));
    expect(items[2]).toHaveAttribute("aria-selected", "true");
    expect(argsOf(calls, "get_workspace_file")).toEqual([{ chatId: "chat-1", path: "app.py", manifestId: "man-1" }]);

    await userEvent.click(within(tree).getByTitle("data/chart.png"));
    expect((await screen.findByRole("img", { name: "data/chart.png" })).getAttribute("src")).toBe(
      "atelier-render://localhost/0123/chart.png",
    );
  });

  it("keeps Compare… off until the chat has two steps, and says why", async () => {
    mockCommands({
      get_workspace_manifest: () => manifest({ "a.txt": "aa" }),
      chat_tree: () => [node("root", null), node("s1", "root")],
    });
    render(<WorkspaceView chats={chats()} active />);
    const compare = await screen.findByRole("button", { name: "Compare…" });
    await waitFor(() => expect(compare).toBeDisabled());
    expect(compare).toHaveAttribute("title", "Compare needs two steps: this chat has one yet");
  });

  it("adds dropped files as an upload node and reloads", async () => {
    let version = 0;
    const calls = mockCommands({
      get_workspace_manifest: () =>
        version === 0
          ? manifest({})
          : manifest({ "report.csv": "dd" }, { "report.csv": "dd" }, { id: "man-2", source: "user_upload" }),
      upload_files: () => {
        version = 1;
        return {
          message_id: "m2",
          manifest_id: "man-2",
          changed: true,
          added: 1,
          removed: 0,
          modified: 0,
          warnings: ["photos/link: a symlink, not copied"],
        };
      },
    });
    render(<WorkspaceView chats={chats()} active />);
    await screen.findByText("The workspace is empty");
    await settle();
    await act(() => emit("tauri://drag-over", { position: { x: 1, y: 1 } }));
    expect(screen.getByTestId("workspace-view")).toHaveClass("drop-over");
    await act(() =>
      emit("tauri://drag-drop", { paths: ["/home/me/report.csv", "/home/me/photos"], position: { x: 1, y: 1 } }),
    );
    expect(
      await screen.findByText(/Added as a new upload step: 1 new, 0 changed\. Skipped: photos\/link/),
    ).toBeInTheDocument();
    expect(argsOf(calls, "upload_files").map(({ onProgress: _c, ...a }) => a)).toEqual([
      { chatId: "chat-1", paths: ["/home/me/report.csv", "/home/me/photos"], dest: "" },
    ]);
    expect(await screen.findByText("report.csv")).toBeInTheDocument();
    expect(screen.getByText(/this step: an upload/)).toBeInTheDocument();
  });

  it("exports the node as a ZIP or a folder through a save dialog; a cancelled dialog does nothing", async () => {
    let picked: string | null = null;
    const calls = mockCommands({
      get_workspace_manifest: () => manifest({ "a.txt": "aa" }),
      pick_workspace_export_path: () => picked,
      export_workspace: (a) => ({ path: String(a.path), files: 1, bytes: 3 }),
    });
    render(<WorkspaceView chats={chats()} active />);
    const button = await screen.findByRole("button", { name: "Export ZIP…" });
    await userEvent.click(button);
    await waitFor(() => expect(argsOf(calls, "pick_workspace_export_path")).toHaveLength(1));
    expect(argsOf(calls, "export_workspace")).toEqual([]);
    picked = "/home/me/ws.zip";
    await userEvent.click(button);
    expect(await screen.findByText("Exported 1 file (3 B) to /home/me/ws.zip.")).toBeInTheDocument();
    expect(argsOf(calls, "pick_workspace_export_path")[1]).toEqual({ suggestedName: "workspace.zip", zip: true });

    // A folder: the dialog names a new folder, the core fills it.
    picked = "/home/me/ws-copy";
    await userEvent.click(screen.getByRole("button", { name: "Export folder…" }));
    expect(await screen.findByText("Exported 1 file (3 B) to /home/me/ws-copy.")).toBeInTheDocument();
    expect(argsOf(calls, "pick_workspace_export_path")[2]).toEqual({ suggestedName: "workspace", zip: false });
    expect(argsOf(calls, "export_workspace").map(({ onProgress: _c, ...a }) => a)).toEqual([
      { chatId: "chat-1", node: "man-1", path: "/home/me/ws.zip" },
      { chatId: "chat-1", node: "man-1", path: "/home/me/ws-copy" },
    ]);
  });

  it("says what to do when there is no chat yet", () => {
    mockCommands({});
    render(<WorkspaceView chats={chats(null)} active />);
    expect(screen.getByText("No chat yet")).toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Export ZIP…" })).toBeDisabled();
  });
});

describe("workspace browser reloads", () => {
  it("when shown again, not when hidden", async () => {
    const calls = mockCommands({ get_workspace_manifest: () => manifest({ "a.txt": "aa" }) });
    const view = render(<WorkspaceView chats={chats()} active />);
    await screen.findByText("a.txt");
    expect(argsOf(calls, "get_workspace_manifest")).toHaveLength(1);
    view.rerender(<WorkspaceView chats={chats()} active={false} />);
    await act(async () => undefined);
    expect(argsOf(calls, "get_workspace_manifest")).toHaveLength(1);
    view.rerender(<WorkspaceView chats={chats()} active />);
    await waitFor(() => expect(argsOf(calls, "get_workspace_manifest")).toHaveLength(2));
  });
});

describe("after a switch", () => {
  it("reads the manifest the switch named, once, sharing a read already under way", async () => {
    const { clearManifests, prefetchManifest } = await import("../src/workspace/manifests");
    clearManifests();
    const calls = mockCommands({
      get_workspace_manifest: (a) => manifest({ "branch-b/README.txt": "bb" }, {}, { id: String(a.manifestId) }),
    });
    const view = render(<WorkspaceView chats={chats()} active />);
    await settle();
    // The switch started reading the target while the workspace moved…
    prefetchManifest("chat-1", "man-b");
    // …then said where the chat is now.
    view.rerender(<WorkspaceView chats={movedTo("man-b")} active />);
    expect(await screen.findByText("branch-b")).toBeInTheDocument();
    expect(argsOf(calls, "get_workspace_manifest")).toEqual([
      { chatId: "chat-1", manifestId: null },
      { chatId: "chat-1", manifestId: "man-b" },
    ]);
    // Shown again later (the tab was hidden): the active state is read afresh.
    view.rerender(<WorkspaceView chats={movedTo("man-b")} active={false} />);
    view.rerender(<WorkspaceView chats={movedTo("man-b")} active />);
    await settle();
    expect(argsOf(calls, "get_workspace_manifest").at(-1)).toEqual({ chatId: "chat-1", manifestId: null });
  });

  it("shows a checkout's files while the folder moves, then stays on them once it has moved", async () => {
    const { clearManifests } = await import("../src/workspace/manifests");
    clearManifests();
    const calls = mockCommands({
      get_workspace_manifest: (a) =>
        a.manifestId === "man-b"
          ? manifest({ "branch-b/README.txt": "bb" }, {}, { id: "man-b" })
          : manifest({ "branch-a/README.txt": "aa" }),
    });
    const view = render(<WorkspaceView chats={chats()} active />);
    expect(await screen.findByText("branch-a")).toBeInTheDocument();
    // The map's click: the checkout is under way, nothing has moved yet.
    view.rerender(<WorkspaceView chats={{ ...chats(), showing: { chatId: "chat-1", manifestId: "man-b" } }} active />);
    expect(await screen.findByText("branch-b")).toBeInTheDocument();
    expect(screen.queryByText("branch-a")).toBeNull();
    // The folder is not there yet: nothing acts on it meanwhile.
    for (const name of ["Open folder", "Export folder…", "Export ZIP…"]) {
      expect(screen.getByRole("button", { name })).toBeDisabled();
    }
    // Moved: the same files, read once.
    view.rerender(<WorkspaceView chats={movedTo("man-b")} active />);
    await settle();
    expect(screen.getByText("branch-b")).toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Export ZIP…" })).toBeEnabled();
    expect(argsOf(calls, "get_workspace_manifest").filter((a) => a.manifestId === "man-b")).toHaveLength(1);
    // Another chat's checkout is not shown here.
    view.rerender(
      <WorkspaceView chats={{ ...chats(), revision: 2, showing: { chatId: "chat-2", manifestId: "man-c" } }} active />,
    );
    await settle();
    expect(argsOf(calls, "get_workspace_manifest").some((a) => a.manifestId === "man-c")).toBe(false);
  });

  it("keeps only the last few manifests, and does not keep a failed read", async () => {
    const { clearManifests, manifestOf } = await import("../src/workspace/manifests");
    clearManifests();
    let fail = true;
    const calls = mockCommands({
      get_workspace_manifest: (a) => {
        if (fail && a.manifestId === "m0") throw { kind: "io", message: "disk" };
        return manifest({}, {}, { id: String(a.manifestId) });
      },
    });
    await expect(manifestOf("chat-1", "m0")).rejects.toMatchObject({ kind: "io" });
    fail = false;
    for (const id of ["m0", "m1", "m2", "m3", "m4", "m4", "m0"]) await manifestOf("chat-1", id);
    // m0 is read again after its failure; m4, asked twice, is read once; with room
    // for four, m4 pushed m0 out, so asking for m0 once more reads it again.
    expect(argsOf(calls, "get_workspace_manifest").map((a) => a.manifestId)).toEqual([
      "m0",
      "m0",
      "m1",
      "m2",
      "m3",
      "m4",
      "m0",
    ]);
  });
});
