import { act, render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it, vi } from "vitest";
import type { MessageNode, ToolCallRecord } from "../src/bindings";
import { api } from "../src/api";
import { BranchView } from "../src/calls/BranchView";
import { call, chat, node, plan } from "./fixtures";
import { argsOf, deferred, mockCommands } from "./ipc";

// root ─ a ─┬─ b1 (edit) ─ c
//           └─ b2
const a = call({ id: "ca", node_id: "a", tool_id: "write_file", render_plan: plan("code", { content: "A" }) });
const c = call({ id: "cc", node_id: "c", tool_id: "read_file", render_plan: plan("code", { content: "C" }) });
const b2 = call({ id: "cb2", node_id: "b2", tool_id: "list_files", render_plan: plan("code", { content: "B2" }) });

function tree(activeLeaf: "c" | "b2"): MessageNode[] {
  const on = (ids: string[]) => (id: string) => ids.includes(id);
  const active = on(activeLeaf === "c" ? ["root", "a", "b1", "c"] : ["root", "a", "b2"]);
  return [
    node("root", null, { children: ["a"], on_active_branch: true }),
    node("a", "root", { children: ["b1", "b2"], on_active_branch: true }),
    node("b1", "a", {
      role: "edit",
      content: [{ type: "workspace_edit", added: 1, removed: 0, modified: 2 }],
      children: ["c"],
      on_active_branch: active("b1"),
    }),
    node("c", "b1", { on_active_branch: active("c") }),
    node("b2", "a", { on_active_branch: active("b2") }),
  ];
}

describe("the active branch", () => {
  it("shows calls and edits of the active branch with sibling arrows at the branch point", async () => {
    let leaf: "c" | "b2" = "c";
    const onSwitched = vi.fn();
    const calls = mockCommands({
      chat_tree: () => tree(leaf),
      switch_branch: (args) => {
        leaf = args.messageId === "b2" ? "b2" : "c";
        return chat({ active_leaf_message_id: leaf });
      },
    });
    render(<BranchView chatId="chat-1" calls={[a, c, b2]} version="1" focusId={null} onSwitched={onSwitched} />);
    const list = await screen.findByRole("list", { name: "Active branch" });
    await waitFor(() => expect(within(list).getAllByRole("listitem")).toHaveLength(3));
    expect(within(list).getByText("Workspace edit: 1 added, 2 changed")).toBeInTheDocument();
    expect(
      within(list)
        .getAllByRole("article")
        .map((x) => x.getAttribute("aria-label")),
    ).toEqual(["Call of write_file", "Call of read_file"]);
    const versions = within(list).getByRole("group", { name: "Other versions of this step" });
    expect(versions).toHaveTextContent("1/2");
    expect(within(versions).getByRole("button", { name: "Previous version" })).toBeDisabled();

    await userEvent.click(within(versions).getByRole("button", { name: "Next version" }));
    await waitFor(() =>
      expect(within(screen.getByRole("list", { name: "Active branch" })).getAllByRole("listitem")).toHaveLength(2),
    );
    expect(argsOf(calls, "switch_branch").map(({ onProgress: _c, ...x }) => x)).toEqual([
      { chatId: "chat-1", messageId: "b2" },
    ]);
    expect(screen.getByRole("group", { name: "Other versions of this step" })).toHaveTextContent("2/2");
    expect(screen.getByRole("article", { name: "Call of list_files" })).toBeInTheDocument();
    expect(onSwitched).toHaveBeenCalledTimes(1);
  });

  it("branches from an earlier step by checking it out; the leaf offers no such button", async () => {
    const calls = mockCommands({ chat_tree: () => tree("c"), checkout: () => chat() });
    render(<BranchView chatId="chat-1" calls={[a, c, b2]} version="1" focusId={null} onSwitched={vi.fn()} />);
    const items = await screen.findAllByRole("listitem");
    await waitFor(() => expect(screen.getAllByRole("listitem")).toHaveLength(3));
    expect(within(items.at(-1)!).queryByRole("button", { name: "Branch from here" })).toBeNull();
    await userEvent.click(
      within(screen.getAllByRole("listitem")[0]!).getByRole("button", { name: "Branch from here" }),
    );
    await waitFor(() => expect(argsOf(calls, "checkout")).toHaveLength(1));
    expect(argsOf(calls, "checkout")[0]).toMatchObject({ chatId: "chat-1", messageId: "a" });
  });

  it("shows a failed switch where it happened", async () => {
    const onSwitched = vi.fn();
    mockCommands({
      chat_tree: () => tree("c"),
      switch_branch: () => {
        throw { kind: "corrupt_blob", message: "blob ab of a.txt is corrupt" };
      },
    });
    render(<BranchView chatId="chat-1" calls={[a, c, b2]} version="1" focusId={null} onSwitched={onSwitched} />);
    const next = await screen.findByRole("button", { name: "Next version" });
    await act(async () => next.click());
    expect(await screen.findByRole("alert")).toHaveTextContent("blob ab of a.txt is corrupt");
    // The other views (the map, the workspace) read again as well.
    expect(onSwitched).toHaveBeenCalledWith();
    // The branch drawn for the switch goes: the chat is where it was.
    await waitFor(() =>
      expect(within(screen.getByRole("list", { name: "Active branch" })).getAllByRole("listitem")).toHaveLength(3),
    );
    expect(screen.getByRole("article", { name: "Call of read_file" })).toBeInTheDocument();
    expect(screen.queryByRole("article", { name: "Call of list_files" })).toBeNull();
  });

  it("draws the other branch at once, while the workspace moves; a message sent meanwhile waits for the move", async () => {
    const moved = deferred<ReturnType<typeof chat>>();
    let leaf: "c" | "b2" = "c";
    const onSwitched = vi.fn();
    const calls = mockCommands({
      chat_tree: () => tree(leaf),
      switch_branch: () => moved.promise,
      send_message: () => ({ status: "complete", error: null, error_kind: null, messages: [], tool_calls: [] }),
    });
    render(<BranchView chatId="chat-1" calls={[a, c, b2]} version="1" focusId={null} onSwitched={onSwitched} />);
    const next = await screen.findByRole("button", { name: "Next version" });
    await waitFor(() => expect(screen.getAllByRole("listitem")).toHaveLength(3));
    act(() => next.click());
    // Drawn in the click's own render: no read of the tree, no answer yet.
    expect(within(screen.getByRole("list", { name: "Active branch" })).getAllByRole("listitem")).toHaveLength(2);
    expect(screen.getByRole("article", { name: "Call of list_files" })).toBeInTheDocument();
    expect(screen.getByRole("group", { name: "Other versions of this step" })).toHaveTextContent("2/2");
    expect(onSwitched).not.toHaveBeenCalled();

    const sent = api.sendMessage("chat-1", "hello", {
      parent_id: null,
      agent_id: null,
      provider_id: null,
      model: null,
      images: [],
    });
    await new Promise((r) => setTimeout(r, 20));
    expect(argsOf(calls, "send_message")).toEqual([]);

    leaf = "b2";
    await act(async () => moved.resolve(chat({ active_leaf_message_id: "b2" })));
    await sent;
    expect(argsOf(calls, "send_message")).toHaveLength(1);
    expect(onSwitched).toHaveBeenCalledTimes(1);
    expect(within(screen.getByRole("list", { name: "Active branch" })).getAllByRole("listitem")).toHaveLength(2);
  });

  it("stops a message still waiting for a switch: it is never sent", async () => {
    let switches = 0;
    const moved = deferred<ReturnType<typeof chat>>();
    const calls = mockCommands({
      chat_tree: () => tree("c"),
      switch_branch: () => (++switches === 1 ? moved.promise : Promise.reject({ kind: "io", message: "disk" })),
      send_message: () => ({ status: "complete", error: null, error_kind: null, messages: [], tool_calls: [] }),
      stop_run: () => false,
    });
    render(<BranchView chatId="chat-1" calls={[a, c, b2]} version="1" focusId={null} onSwitched={vi.fn()} />);
    const next = await screen.findByRole("button", { name: "Next version" });
    await waitFor(() => expect(screen.getAllByRole("listitem")).toHaveLength(3));
    act(() => next.click());
    const request = { parent_id: null, agent_id: null, provider_id: null, model: null, images: [] };
    const sent = api.sendMessage("chat-1", "hello", request).then(
      () => null,
      (e: unknown) => e,
    );
    expect(await api.stopRun("chat-1")).toBe(false); // nothing runs in the core yet
    await act(async () => moved.resolve(chat({ active_leaf_message_id: "b2" })));
    expect(await sent).toMatchObject({ kind: "cancelled" });
    expect(argsOf(calls, "send_message")).toEqual([]);
    // A switch that fails: what waited for it is not sent either (the screen
    // showed the other branch), and says why.
    const move = api.switchBranch("chat-1", "b1").catch(() => null);
    const refused = api.sendMessage("chat-1", "there?", request).then(
      () => null,
      (e: unknown) => e,
    );
    await move;
    expect(await refused).toMatchObject({ kind: "cancelled", message: expect.stringContaining("switch failed") });
    expect(argsOf(calls, "send_message")).toEqual([]);
    // With no switch under way a send goes at once: the earlier Stop does not hold it.
    const later = await api.sendMessage("chat-1", "again", request);
    expect(later.status).toBe("complete");
  });
});

describe("a step's changes", () => {
  it("are read when opened, show each file's diff, and restore one file", async () => {
    const onSwitched = vi.fn();
    const calls = mockCommands({
      chat_tree: () => tree("c"),
      diff_nodes: () => ({
        added: ["new.txt"],
        removed: ["old.txt"],
        modified: [{ path: "a.txt", diff: "--- a.txt\n+++ a.txt\n@@ -1 +1 @@\n-one\n+ONE" }],
      }),
      restore_file: () => ({
        message_id: "r1",
        manifest_id: "m9",
        changed: true,
        added: 0,
        removed: 0,
        modified: 1,
        warnings: [],
      }),
    });
    render(<BranchView chatId="chat-1" calls={[a, c, b2]} version="1" focusId={null} onSwitched={onSwitched} />);
    await waitFor(() => expect(screen.getAllByRole("listitem").length).toBeGreaterThanOrEqual(3));
    expect(argsOf(calls, "diff_nodes")).toEqual([]); // nothing read until opened
    const first = screen.getAllByText("Files changed by this step")[0]!;
    // Part of the call's card, at its foot (not hanging under it).
    expect(first.closest("article.call-card")).toHaveAccessibleName("Call of " + a.tool_id);
    await userEvent.click(first);
    const changed = await screen.findByRole("list", { name: "Changed files" });
    expect(argsOf(calls, "diff_nodes")).toEqual([{ chatId: "chat-1", from: "root", to: "a" }]);
    expect(within(changed).getByText("new.txt")).toBeInTheDocument();
    expect(changed.querySelector(".diff-del")?.textContent).toBe("-one\n");
    expect(changed.querySelector(".diff-add")?.textContent).toBe("+ONE\n");
    // Each button says what it does: bring a version back, or take the file out.
    expect(within(changed).getByRole("button", { name: "Restore this version: new.txt" })).toBeInTheDocument();
    expect(within(changed).getByRole("button", { name: "Remove from current: old.txt" })).toHaveTextContent(
      "Remove from current",
    );
    await userEvent.click(within(changed).getByRole("button", { name: "Restore this version: a.txt" }));
    expect(await screen.findByText("a.txt is back as it was after this step (a new edit step).")).toBeInTheDocument();
    expect(argsOf(calls, "restore_file")).toEqual([{ chatId: "chat-1", path: "a.txt", from: "a" }]);
    expect(onSwitched).toHaveBeenCalled();
  });
});

describe("a long chat", () => {
  // root ─ s0 ─ s1 ─ … ─ s1999: one call each.
  const N = 2000;
  const chain: MessageNode[] = [node("root", null, { children: ["s0"], on_active_branch: true })];
  const calls: ToolCallRecord[] = [];
  for (let i = 0; i < N; i++) {
    chain.push(
      node(`s${i}`, i === 0 ? "root" : `s${i - 1}`, {
        children: i + 1 < N ? [`s${i + 1}`] : [],
        on_active_branch: true,
      }),
    );
    calls.push(
      call({ id: `c${i}`, node_id: `s${i}`, tool_id: `tool_${i}`, render_plan: plan("code", { content: `out ${i}` }) }),
    );
  }

  it("renders only the steps near the viewport, and brings the call just run into view", async () => {
    mockCommands({ chat_tree: () => chain });
    // jsdom has no scrolling: record where the virtualizer asks to go.
    const scrolled = vi.fn();
    Object.defineProperty(HTMLElement.prototype, "scrollTo", { value: scrolled, configurable: true });
    // …and no layout: every element is a 900 px square.
    const height = vi.spyOn(HTMLElement.prototype, "clientHeight", "get").mockReturnValue(900);
    const width = vi.spyOn(HTMLElement.prototype, "clientWidth", "get").mockReturnValue(900);
    const scrollHeight = vi.spyOn(HTMLElement.prototype, "scrollHeight", "get").mockReturnValue(N * 300);
    render(
      <div style={{ overflowY: "auto", height: 900 }}>
        <BranchView chatId="chat-1" calls={calls} version="1" focusId="c1999" onSwitched={() => undefined} />
      </div>,
    );
    const list = await screen.findByRole("list", { name: "Active branch" });
    const items = within(list).getAllByRole("listitem");
    expect(items.length).toBeGreaterThan(0);
    // (jsdom measures rendered cards as 0 px tall, so more fit than in the app.)
    expect(items.length).toBeLessThan(200);
    // The list is as tall as all its steps, so the scrollbar is honest.
    expect(parseFloat(list.style.height)).toBeGreaterThan(N * 100);
    // The newest call was asked for: the scroller moves to its place.
    await waitFor(() => expect(scrolled).toHaveBeenCalled());
    const to = (scrolled.mock.calls.at(-1)?.[0] as { top: number }).top;
    expect(to).toBeGreaterThan((N - 10) * 100);
    delete (HTMLElement.prototype as { scrollTo?: unknown }).scrollTo;
    height.mockRestore();
    width.mockRestore();
    scrollHeight.mockRestore();
  });
});

describe("while a call runs in the chat", () => {
  it("the arrows and Branch from here wait for it, and say why", async () => {
    const { RunsProvider, useRuns } = await import("../src/calls/runs");
    const done = deferred<ToolCallRecord>();
    mockCommands({ chat_tree: () => tree("c"), run_tool: () => done.promise });
    function Start() {
      const runs = useRuns();
      return (
        <button type="button" onClick={() => void runs.start("chat-1", "read_file", {}).catch(() => undefined)}>
          start
        </button>
      );
    }
    render(
      <RunsProvider>
        <Start />
        <BranchView chatId="chat-1" calls={[a, c, b2]} version="1" focusId={null} onSwitched={() => undefined} />
      </RunsProvider>,
    );
    const next = await screen.findByRole("button", { name: "Next version" });
    expect(next).toBeEnabled();
    await userEvent.click(screen.getByRole("button", { name: "start" }));
    expect(next).toBeDisabled();
    expect(next).toHaveAttribute("title", expect.stringContaining("A call is running in this chat"));
    expect(screen.getAllByRole("button", { name: "Branch from here" })[0]).toBeDisabled();
    expect(screen.getByRole("list", { name: "Calls in progress" })).toHaveTextContent("read_file");
    await act(async () => done.resolve(call({ tool_id: "read_file" })));
    await waitFor(() => expect(next).toBeEnabled());
  });
});

describe("uploads", () => {
  it("read as uploads, not hand edits, on the branch", async () => {
    mockCommands({
      chat_tree: () => [
        node("root", null, { children: ["u"] }),
        node("u", "root", {
          role: "edit",
          source: "user_upload",
          content: [{ type: "workspace_edit", added: 2, removed: 0, modified: 0 }],
        }),
      ],
    });
    render(<BranchView chatId="chat-1" calls={[]} version="1" focusId={null} onSwitched={() => undefined} />);
    expect(await screen.findByText("Upload: 2 added")).toBeInTheDocument();
  });
});

describe("a denied call", () => {
  it("shows no files changed by its step: it ran nothing", async () => {
    const denied = call({ id: "cd", node_id: "a", tool_id: "delete_file", status: "error", error_kind: "denied" });
    mockCommands({
      chat_tree: () => [node("root", null, { children: ["a"], latest_leaf: "a" }), node("a", "root", {})],
    });
    render(<BranchView chatId="chat-1" calls={[denied]} version="1" focusId={null} onSwitched={vi.fn()} />);
    expect(await screen.findByRole("article", { name: "Call of delete_file" })).toHaveTextContent("denied");
    expect(screen.queryByText("Files changed by this step")).toBeNull();
  });
});
