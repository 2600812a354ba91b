// Every view starts from nothing when the chat changes, and a read for the
// chat left behind never lands in the chat now shown (answers are delayed
// here so they arrive after the switch).
import { act, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, describe, expect, it } from "vitest";
import { App } from "../src/App";
import type { Chat, MessageNode, ToolCallRecord, WorkspaceManifest } from "../src/bindings";
import { clearManifests } from "../src/workspace/manifests";
import { RunsProvider } from "../src/calls/runs";
import { ToolRunner } from "../src/tools/ToolRunner";
import { call, chat, node, plan, tool } from "./fixtures";
import { deferred, mockCommands, type Args } from "./ipc";

afterEach(clearManifests);

function manifest(chatId: string, id: string, files: Record<string, string>): WorkspaceManifest {
  return {
    id,
    chat_id: chatId,
    parent_id: null,
    files,
    executable: [],
    changes: {},
    created_at: "2026-11-20T10:00:00.000Z",
    source: "tool_run",
    source_ref: null,
    root_tree: "t",
    file_count: Object.keys(files).length,
    total_size: 10,
  };
}

// Chat A: root → s1 → (s2a | s2b), at s2b; its files name the branch.
const A = chat({ id: "A", title: "Alpha", updated_at: "2026-11-21T10:00:00.000Z" });
const B = chat({ id: "B", title: "Beta", updated_at: "2026-11-20T09:00:00.000Z" });
const treeA = (at: "s2a" | "s2b"): MessageNode[] => [
  node("rootA", null, { chat_id: "A", children: ["s1"], latest_leaf: "s2b" }),
  node("s1", "rootA", { chat_id: "A", children: ["s2a", "s2b"], latest_leaf: "s2b" }),
  node("s2a", "s1", { chat_id: "A", on_active_branch: at === "s2a", manifest_id: "man-s2a" }),
  node("s2b", "s1", { chat_id: "A", on_active_branch: at === "s2b", manifest_id: "man-s2b" }),
];
const callsA: ToolCallRecord[] = ["s1", "s2a", "s2b"].map((id) =>
  call({ id: `c-${id}`, chat_id: "A", node_id: id, tool_id: `tool_${id}`, render_plan: plan("code", { content: id }) }),
);
const treeB: MessageNode[] = [
  node("rootB", null, { chat_id: "B", children: ["b1"], latest_leaf: "b1" }),
  node("b1", "rootB", { chat_id: "B", manifest_id: "man-b1" }),
];
const callsB = [
  call({ id: "c-b1", chat_id: "B", node_id: "b1", tool_id: "tool_b1", render_plan: plan("code", { content: "b" }) }),
];
const filesOf: Record<string, Record<string, string>> = {
  "man-s2a": { "alpha-a.txt": "1" },
  "man-s2b": { "alpha-b.txt": "2" },
  "man-b1": { "beta.txt": "3" },
  "man-new": {},
};

/** The app over chats A and B; `hold(cmd, chat)` answers that read only when released. */
function mockApp(extra: Chat[] = []) {
  let at: "s2a" | "s2b" = "s2b";
  const chats = [A, B, ...extra];
  const held = new Map<string, ReturnType<typeof deferred<void>>>();
  const gate = async (cmd: string, a: Args) => {
    const d = held.get(`${cmd}:${String(a.chatId)}`);
    if (d !== undefined) await d.promise;
  };
  const calls = mockCommands({
    list_chats: () => [...chats],
    create_chat: (a) => {
      const c = chat({ id: "C", title: String(a.title), root_message_id: "rootC", active_manifest_id: "man-new" });
      chats.push(c);
      return c;
    },
    list_toolsets: () => [],
    get_available_tools: () => [],
    get_settings: () => ({ saved: { frame_origins: [] }, frame_origins_in_effect: [] }),
    chat_tree: async (a) => {
      await gate("chat_tree", a);
      if (a.chatId === "A") return treeA(at);
      if (a.chatId === "B") return treeB;
      return [node("rootC", null, { chat_id: "C", manifest_id: "man-new" })];
    },
    list_tool_calls: async (a) => {
      await gate("list_tool_calls", a);
      return a.chatId === "A" ? callsA : a.chatId === "B" ? callsB : [];
    },
    get_workspace_manifest: async (a) => {
      await gate("get_workspace_manifest", a);
      const chatId = String(a.chatId);
      const own: Record<string, string> = { A: at === "s2a" ? "man-s2a" : "man-s2b", B: "man-b1", C: "man-new" };
      const id = a.manifestId === null ? own[chatId]! : String(a.manifestId);
      const mine = chatId === "A" ? id.startsWith("man-s2") : id === own[chatId];
      if (!mine) throw { kind: "not_found", message: `workspace manifest ${id} not found in chat ${chatId}` };
      return manifest(chatId, id, filesOf[id]!);
    },
    switch_branch: (a) => {
      at = a.messageId === "s2a" ? "s2a" : "s2b";
      return { ...A, active_leaf_message_id: at, active_manifest_id: `man-${at}` };
    },
    diff_nodes: () => ({ added: [], removed: [], modified: [] }),
  });
  return {
    calls,
    hold(cmd: string, chatId: string) {
      const d = deferred<void>();
      held.set(`${cmd}:${chatId}`, d);
      return () => {
        held.delete(`${cmd}:${chatId}`);
        d.resolve();
      };
    },
  };
}

const chatList = () => screen.getByRole("list", { name: "Chat list" });
const workspace = () => screen.getByTestId("workspace-view");

describe("changing chats", () => {
  it("shows a new chat empty after Compare… and a branch switch in the old one (the issue's steps)", async () => {
    mockApp();
    render(<App />);
    await userEvent.click(await screen.findByRole("tab", { name: "Workspace" }));
    expect(await within(workspace()).findByText("alpha-b.txt")).toBeInTheDocument();
    await userEvent.click(within(workspace()).getByRole("button", { name: "Compare…" }));
    expect(await screen.findByRole("region", { name: "Compare two steps" })).toBeInTheDocument();
    // Alt+←: the branch view (Tools tab, mounted) switches A to its other version.
    await waitFor(() =>
      expect(screen.getByRole("group", { name: "Other versions of this step", hidden: true })).toBeTruthy(),
    );
    fireEvent.keyDown(window, { key: "ArrowLeft", altKey: true });
    expect(await within(workspace()).findByText("alpha-a.txt")).toBeInTheDocument();
    // Ctrl+N: a new chat, with nothing of A's.
    fireEvent.keyDown(window, { key: "n", ctrlKey: true });
    await waitFor(() =>
      expect(within(chatList()).getByRole("button", { name: "New chat 3" })).toHaveAttribute("aria-current", "true"),
    );
    expect(await within(workspace()).findByText("The workspace is empty")).toBeInTheDocument();
    expect(within(workspace()).queryByText(/could not be read/)).toBeNull();
    expect(within(workspace()).queryByText("alpha-a.txt")).toBeNull();
    expect(screen.queryByRole("region", { name: "Compare two steps" })).toBeNull();
  });

  it("never shows the old chat's files or calls while the new chat's reads are in flight", async () => {
    const app = mockApp();
    render(<App />);
    await userEvent.click(await screen.findByRole("tab", { name: "Workspace" }));
    expect(await within(workspace()).findByText("alpha-b.txt")).toBeInTheDocument();
    await userEvent.click(within(workspace()).getByRole("button", { name: "Compare…" }));
    await screen.findByRole("combobox", { name: "From" });
    await userEvent.click(within(workspace()).getByTitle("alpha-b.txt"));

    const releaseManifest = app.hold("get_workspace_manifest", "B");
    const releaseTree = app.hold("chat_tree", "B");
    const releaseCalls = app.hold("list_tool_calls", "B");
    await userEvent.click(within(chatList()).getByRole("button", { name: "Beta" }));
    // B's answers have not come: nothing of A's is shown meanwhile.
    expect(within(workspace()).queryByText("alpha-b.txt")).toBeNull();
    expect(within(workspace()).getByText("Reading the workspace…")).toBeInTheDocument();
    expect(screen.queryByRole("region", { name: "Compare two steps" })).toBeNull();
    expect(within(workspace()).queryByText(/Alpha/)).toBeNull();
    await userEvent.click(screen.getByRole("tab", { name: "Chat" }));
    expect(screen.queryByRole("article", { name: "Call of tool_s1" })).toBeNull();

    await act(async () => {
      releaseTree();
      releaseCalls();
      releaseManifest();
      await Promise.resolve();
    });
    expect(await screen.findByRole("article", { name: "Call of tool_b1" })).toBeInTheDocument();
    await userEvent.click(screen.getByRole("tab", { name: "Workspace" }));
    expect(await within(workspace()).findByText("beta.txt")).toBeInTheDocument();
    expect(within(workspace()).getByLabelText("Where you are")).toHaveTextContent("Beta");
  });

  it("drops A's late answers when B is shown first", async () => {
    const app = mockApp();
    render(<App />);
    await userEvent.click(await screen.findByRole("tab", { name: "Workspace" }));
    expect(await within(workspace()).findByText("alpha-b.txt")).toBeInTheDocument();
    // A is read again (the tab comes back) but its answer is late.
    const releaseA = app.hold("get_workspace_manifest", "A");
    const releaseTreeA = app.hold("chat_tree", "A");
    await userEvent.click(screen.getByRole("tab", { name: "Chat" }));
    await userEvent.click(screen.getByRole("tab", { name: "Workspace" }));
    await userEvent.click(within(chatList()).getByRole("button", { name: "Beta" }));
    expect(await within(workspace()).findByText("beta.txt")).toBeInTheDocument();
    await act(async () => {
      releaseA();
      releaseTreeA();
      await Promise.resolve();
    });
    await new Promise((r) => setTimeout(r, 20));
    expect(within(workspace()).queryByText("alpha-b.txt")).toBeNull();
    expect(within(workspace()).getByText("beta.txt")).toBeInTheDocument();
    expect(within(workspace()).getByLabelText("Where you are")).toHaveTextContent(
      "Beta · one branch · step 1 (latest)",
    );
  });
});

describe("a run's error and progress stay in their chat", () => {
  it("says a run started in chat A failed only in chat A, and in B says the form is busy elsewhere", async () => {
    const answer = deferred<never>();
    mockCommands({ validate_tool_args: () => [], run_tool: () => answer.promise });
    const t = tool({ tool_id: "demo:slow", toolset_id: "demo", name: "Slow", input_schema: { type: "object" } });
    const view = (chatId: string) => (
      <RunsProvider>
        <ToolRunner tool={t} chatId={chatId} ensureChat={() => Promise.resolve(chatId)} onCall={() => undefined} />
      </RunsProvider>
    );
    const { rerender } = render(view("A"));
    await userEvent.click(screen.getByRole("button", { name: "Run" }));
    await screen.findByRole("button", { name: "Running…" });
    rerender(view("B"));
    expect(screen.getByRole("button", { name: "Running in another chat…" })).toBeDisabled();
    expect(screen.queryByText(/follow it in the call below/)).toBeNull();
    await act(async () => {
      answer.reject({ kind: "toolset_disabled", message: "toolset demo is disabled" });
      await Promise.resolve();
    });
    await screen.findByRole("button", { name: "Run" });
    expect(screen.queryByText("The tool did not run.")).toBeNull();
    rerender(view("A"));
    expect(await screen.findByText("The tool did not run.")).toBeInTheDocument();
  });
});
