import { render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it } from "vitest";
import type { ManifestSource, MessageNode, WorkspaceDiff, WorkspaceManifest } from "../src/bindings";
import type { Chats } from "../src/chats/useChats";
import { WorkspaceView } from "../src/workspace/WorkspaceView";
import { call, node, chatsStub } from "./fixtures";
import { argsOf, mockCommands, type Args } from "./ipc";

function chats(): Chats {
  return chatsStub();
}

function manifest(id: string, source: ManifestSource): WorkspaceManifest {
  return {
    id,
    chat_id: "chat-1",
    parent_id: null,
    files: { "notes.md": "n", "logo.bin": "l" },
    executable: [],
    changes: {},
    created_at: "2026-11-23T06:00:00.000Z",
    source,
    source_ref: null,
    root_tree: "t",
    file_count: 2,
    total_size: 10,
  };
}

// root ─ a (write_file) ─┬─ b (upload) ─ c (edit, current)
//                        └─ b2 (list_files)
function chatTree(): MessageNode[] {
  const at = (min: number) => `2026-11-20T10:0${min}:00.000Z`;
  return [
    node("root", null, { children: ["a"] }),
    node("a", "root", {
      content: [{ type: "tool_call", tool_call_id: "ca" }],
      children: ["b", "b2"],
      created_at: at(1),
    }),
    node("b", "a", {
      role: "edit",
      source: "user_upload",
      content: [{ type: "workspace_edit", added: 1, removed: 0, modified: 0 }],
      children: ["c"],
      created_at: at(2),
    }),
    node("c", "b", {
      role: "edit",
      source: "edit",
      content: [{ type: "workspace_edit", added: 0, removed: 0, modified: 2 }],
      created_at: at(3),
    }),
    node("b2", "a", {
      content: [{ type: "tool_call", tool_call_id: "cb2" }],
      on_active_branch: false,
      created_at: at(4),
    }),
  ];
}

function diffOf({ from, to }: Args): WorkspaceDiff {
  if (from === "b" && to === "c") {
    return {
      added: [],
      removed: [],
      modified: [
        { path: "notes.md", diff: "--- notes.md\n+++ notes.md\n@@ -1 +1 @@\n-draft\n+final" },
        { path: "logo.bin", binary: true },
        { path: ".env", mode_only: true, mode_from: 0o644, mode_to: 0o600 },
      ],
    };
  }
  if (from === "root" && to === "c") return { added: ["notes.md", "logo.bin"], removed: [], modified: [] };
  if (from === "c" && to === "root") return { added: [], removed: ["notes.md", "logo.bin"], modified: [] };
  return { added: [], removed: [], modified: [] };
}

function mock() {
  return mockCommands({
    get_workspace_manifest: (a) => manifest(typeof a.manifestId === "string" ? a.manifestId : "man-c", "edit"),
    chat_tree: () => chatTree(),
    list_tool_calls: () => [
      call({ id: "ca", node_id: "a", tool_id: "write_file" }),
      call({ id: "cb2", node_id: "b2", tool_id: "list_files" }),
    ],
    diff_nodes: diffOf,
  });
}

async function openCompare() {
  render(<WorkspaceView chats={chats()} active />);
  await screen.findByRole("tree", { name: "Workspace files" });
  await userEvent.click(screen.getByRole("button", { name: "Compare…" }));
  return screen.findByRole("region", { name: "Compare two steps" });
}

describe("comparing two nodes", () => {
  it("takes the focus when it opens, and gives it back to Compare… on Escape and on Close", async () => {
    mock();
    const panel = await openCompare();
    const opener = screen.getByRole("button", { name: "Compare…" });
    // Into the panel: its first control, not left on the button behind it.
    await waitFor(() => expect(within(panel).getByRole("button", { name: "Close" })).toHaveFocus());
    await userEvent.keyboard("{Escape}");
    await waitFor(() => expect(screen.queryByRole("region", { name: "Compare two steps" })).toBeNull());
    expect(opener).toHaveFocus();

    await userEvent.click(opener);
    const again = await screen.findByRole("region", { name: "Compare two steps" });
    await waitFor(() => expect(within(again).getByRole("button", { name: "Close" })).toHaveFocus());
    // Escape from deeper in the panel (a step's select) closes it too.
    await userEvent.tab();
    expect(again.contains(document.activeElement)).toBe(true);
    await userEvent.keyboard("{Escape}");
    await waitFor(() => expect(opener).toHaveFocus());
    await userEvent.click(opener);
    const third = await screen.findByRole("region", { name: "Compare two steps" });
    await userEvent.click(within(third).getByRole("button", { name: "Close" }));
    await waitFor(() => expect(opener).toHaveFocus());
  });

  it("starts with what the last step did: the current node's parent against it, with each diff", async () => {
    const calls = mock();
    const panel = await openCompare();
    const differences = await within(panel).findByRole("list", { name: "Differences" });
    expect(argsOf(calls, "diff_nodes")).toEqual([{ chatId: "chat-1", from: "b", to: "c" }]);
    expect(within(panel).getByText("3 changed.")).toBeInTheDocument();
    expect(differences.querySelector(".diff-del")?.textContent).toBe("-draft\n");
    expect(differences.querySelector(".diff-add")?.textContent).toBe("+final\n");
    const binary = within(differences).getByText("logo.bin").closest("li")!;
    expect(binary).toHaveTextContent("(binary)");
    expect(binary.querySelector(".diff-view")).toBeNull();
    // A chmod alone says which mode, in words.
    expect(within(differences).getByText(".env").closest("li")!).toHaveTextContent(
      "(only its mode changed: 0644 → 0600 (now private))",
    );

    // Every node has a readable name: where it is, what it was, and which is current.
    const from = within(panel).getByLabelText("From");
    await waitFor(() =>
      expect(within(from).getByRole("option", { selected: true }).textContent).toMatch(
        /^Step 2 \(1\/2\) · upload: 1 added · /,
      ),
    );
    const labels = within(from)
      .getAllByRole("option")
      .map((o) => o.textContent ?? "");
    expect(labels.map((l) => l.replace(/ · [^·]*\d[^·]*(?= · current|$)/, ""))).toEqual([
      "Start · empty workspace",
      "Step 1 · write_file",
      "Step 2 (1/2) · upload: 1 added",
      "Step 3 · edit: 2 changed · current",
      "Step 2 (2/2) · list_files",
    ]);
    expect(within(from).getByRole("group", { name: "Other branches" })).toHaveTextContent(/list_files/);
    expect(within(panel).getByLabelText("To")).toHaveValue("c");
  });

  it("restores one file into the workspace as it is in the From step", async () => {
    const calls = mockCommands({
      get_workspace_manifest: (a) => manifest(typeof a.manifestId === "string" ? a.manifestId : "man-c", "edit"),
      chat_tree: () => chatTree(),
      list_tool_calls: () => [call({ id: "ca", node_id: "a", tool_id: "write_file" })],
      diff_nodes: diffOf,
      restore_file: () => ({
        changed: true,
        message_id: "r",
        manifest_id: "man-r",
        added: 0,
        modified: 1,
        removed: 0,
        warnings: [],
      }),
    });
    const panel = await openCompare();
    await within(panel).findByRole("list", { name: "Differences" });
    await userEvent.click(within(panel).getByRole("button", { name: "Restore the From version of notes.md" }));
    expect(await within(panel).findByText("Restored (a new edit step).")).toBeInTheDocument();
    expect(argsOf(calls, "restore_file")).toEqual([{ chatId: "chat-1", path: "notes.md", from: "b" }]);
  });

  it("compares the two nodes the person picks, either way round", async () => {
    const calls = mock();
    const panel = await openCompare();
    await within(panel).findByRole("list", { name: "Differences" });
    await userEvent.selectOptions(within(panel).getByLabelText("From"), "root");
    const added = await within(panel).findByText("2 added.");
    expect(added).toBeInTheDocument();
    expect(argsOf(calls, "diff_nodes").at(-1)).toEqual({ chatId: "chat-1", from: "root", to: "c" });
    const list = within(panel).getByRole("list", { name: "Differences" });
    expect(within(list).getAllByText("added")).toHaveLength(2);
    // Not in the From node: its button takes the file out, and says so.
    expect(within(list).getByRole("button", { name: /^Remove notes\.md from current/ })).toHaveTextContent(
      "Remove from current",
    );

    await userEvent.click(within(panel).getByRole("button", { name: "Swap the two steps" }));
    expect(await within(panel).findByText("2 removed.")).toBeInTheDocument();
    expect(argsOf(calls, "diff_nodes").at(-1)).toEqual({ chatId: "chat-1", from: "c", to: "root" });
    expect(within(panel).getByLabelText("From")).toHaveValue("c");

    // The same node on both sides asks for another, without asking the backend.
    const asked = argsOf(calls, "diff_nodes").length;
    await userEvent.selectOptions(within(panel).getByLabelText("To"), "c");
    expect(within(panel).getByText(/Both sides are the same step/)).toBeInTheDocument();
    expect(argsOf(calls, "diff_nodes")).toHaveLength(asked);

    await userEvent.click(within(panel).getByRole("button", { name: "Close" }));
    expect(screen.queryByRole("region", { name: "Compare two steps" })).toBeNull();
  });

  it("says so when two nodes have the same files", async () => {
    mock();
    const panel = await openCompare();
    await within(panel).findByRole("list", { name: "Differences" });
    await userEvent.selectOptions(within(panel).getByLabelText("From"), "a");
    await userEvent.selectOptions(within(panel).getByLabelText("To"), "b2");
    expect(await within(panel).findByText("The two steps have the same files.")).toBeInTheDocument();
  });
});
