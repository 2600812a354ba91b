// The Workspace tab edits a text file as a call's card does (Save… shows the
// diff, then records an edit node after the step shown), and says where the
// person is: chat · branch · step.
import { act, render, screen, waitFor, within } from "@testing-library/react";
import { EditorView } from "@codemirror/view";
import userEvent from "@testing-library/user-event";
import { afterEach, describe, expect, it } from "vitest";
import type { MessageNode, WorkspaceManifest } from "../src/bindings";
import { MovedContext } from "../src/chats/moved";
import { WorkspaceView } from "../src/workspace/WorkspaceView";
import { clearManifests } from "../src/workspace/manifests";
import { chat, chatsStub, node } from "./fixtures";
import { argsOf, mockCommands } from "./ipc";

afterEach(clearManifests);

const MANIFEST: WorkspaceManifest = {
  id: "man-b2",
  chat_id: "chat-1",
  parent_id: "man-a",
  files: { "notes.md": "n", "logo.png": "p" },
  executable: [],
  changes: {},
  created_at: "2026-11-23T06:00:00.000Z",
  source: "tool_run",
  source_ref: null,
  root_tree: "t",
  file_count: 2,
  total_size: 300,
};

// root ─ a ─┬─ b1 ─ c
//           └─ b2 (the workspace is here: branch 2 of 2, step 2 of 2)
const TREE: MessageNode[] = [
  node("root", null, { children: ["a"], latest_leaf: "b2" }),
  node("a", "root", { children: ["b1", "b2"], latest_leaf: "b2" }),
  node("b1", "a", { children: ["c"], on_active_branch: false, latest_leaf: "c" }),
  node("c", "b1", { on_active_branch: false }),
  node("b2", "a", { manifest_id: "man-b2" }),
];

describe("the Workspace tab", () => {
  it("says where the person is and saves an edited file after that step, with the diff first", async () => {
    const calls = mockCommands({
      get_workspace_manifest: () => MANIFEST,
      chat_tree: () => TREE,
      get_workspace_file: () => ({ path: "notes.md", size: 6, sha256: "n", text: "# Hi\n" }),
      diff_text: () => ({ unified: "@@ -1 +1 @@\n-# Hi\n+# Hi there\n", added: 1, removed: 1 }),
      save_edit: () => ({
        message_id: "e1",
        manifest_id: "man-e1",
        changed: true,
        added: 0,
        removed: 0,
        modified: 1,
        warnings: [],
      }),
    });
    const chats = chatsStub({ load: { state: "ok", data: [chat({ title: "Sales report" })] } });
    const { container } = render(
      <MovedContext.Provider value={chats.moved}>
        <WorkspaceView chats={chats} active />
      </MovedContext.Provider>,
    );
    const where = await screen.findByLabelText("Where you are");
    await waitFor(() =>
      expect(where).toHaveTextContent("Sales report · branch 2 of 2 (from step 2) · step 2 (latest)"),
    );

    const tree = await screen.findByRole("tree", { name: "Workspace files" });
    await userEvent.click(within(tree).getByTitle("notes.md"));
    await waitFor(() => expect(container.querySelector(".cm-content")?.textContent).toBe("# Hi"));
    const view = EditorView.findFromDOM(container.querySelector(".cm-editor") as HTMLElement)!;
    act(() => view.dispatch({ changes: { from: 4, insert: " there" } }));
    expect(screen.getByText("Not saved yet.")).toBeInTheDocument();
    act(() => screen.getByRole("button", { name: "Save…" }).click());
    const dialog = await screen.findByRole("alertdialog", { name: "Save notes.md?" });
    expect(
      await within(dialog).findByText(/\+1 −1 lines\. The change is saved as a new edit step after the current step/),
    );
    act(() => within(dialog).getByRole("button", { name: "Save" }).click());
    expect(await screen.findByText(/Saved as a new edit step after the current step/)).toBeInTheDocument();
    expect(argsOf(calls, "save_edit")).toEqual([
      { chatId: "chat-1", at: "b2", changes: [{ op: "write", path: "notes.md", text: "# Hi there\n" }] },
    ]);
    expect(chats.moved).toHaveBeenCalled();
  });

  it("says an older step is shown, and that images are not edited here", async () => {
    const older = TREE.map((n) =>
      n.id === "b2"
        ? { ...n, id: "b2", children: ["d"], latest_leaf: "d" }
        : n.id === "root" || n.id === "a"
          ? { ...n, latest_leaf: "d" }
          : n,
    );
    older.push(node("d", "b2", { on_active_branch: false }));
    const calls = mockCommands({
      get_workspace_manifest: () => MANIFEST,
      chat_tree: () => older,
      workspace_file_url: () => "atelier-render://localhost/t/logo.png",
      checkout: (a) => chat({ active_leaf_message_id: String(a.messageId), active_manifest_id: "man-d" }),
    });
    const chats = chatsStub();
    render(<WorkspaceView chats={chats} active />);
    const where = await screen.findByLabelText("Where you are");
    await waitFor(() => expect(where).toHaveTextContent("branch 2 of 2 (from step 2) · step 2 of 3"));
    const tree = await screen.findByRole("tree", { name: "Workspace files" });
    await userEvent.click(within(tree).getByTitle("logo.png"));
    expect(await screen.findByText("Only text files are edited here.")).toBeInTheDocument();
    await userEvent.click(within(where).getByRole("button", { name: "Return to latest" }));
    await waitFor(() => expect(argsOf(calls, "checkout")).toMatchObject([{ chatId: "chat-1", messageId: "d" }]));
    expect(chats.moved).toHaveBeenCalledWith("man-d");
  });
});
