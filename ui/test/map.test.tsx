// The conversation map: the sidebar view that jumps (its layout: map-layout.test.ts).
import { act, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it, vi } from "vitest";
import type { Chat, MessageNode } from "../src/bindings";
import { ConversationMap } from "../src/chats/ConversationMap";
import type { Chats } from "../src/chats/useChats";
import { call, chat, node, chatsStub } from "./fixtures";
import { argsOf, deferred, mockCommands } from "./ipc";
import { branched, chain } from "./mapTrees";

function chats(over: Partial<Chats> = {}): Chats {
  return chatsStub(over);
}

const calls = [
  call({ id: "call-a", node_id: "a", tool_id: "write_file" }),
  call({ id: "call-c", node_id: "c", tool_id: "csv_report.summarize" }),
  call({ id: "call-b2", node_id: "b2", tool_id: "read_file", status: "error" }),
  call({ id: "call-d", node_id: "d", tool_id: "list_files" }),
  call({ id: "call-b3", node_id: "b3", tool_id: "delete_file" }),
];

async function shown() {
  return await screen.findByRole("group", { name: "Conversation tree" });
}

describe("conversation map", () => {
  it("shows nothing without a chat", async () => {
    const ipc = mockCommands({});
    const { container } = render(<ConversationMap chats={chats({ selectedId: null })} />);
    await act(async () => undefined);
    expect(container).toBeEmptyDOMElement();
    expect(argsOf(ipc, "chat_tree")).toEqual([]);
  });

  it("highlights the active branch, marks the current node and names each node", async () => {
    mockCommands({ chat_tree: () => branched(), list_tool_calls: () => calls });
    render(<ConversationMap chats={chats()} />);
    const map = await shown();
    expect(screen.getByText("6 steps")).toBeInTheDocument();
    const nodes = within(map).getAllByRole("button");
    const labels = nodes.map((n) => n.getAttribute("aria-label"));
    expect(labels[0]).toMatch(/^Start: empty workspace, /);
    expect(labels).toContainEqual(expect.stringMatching(/^Step 1: write_file, /));
    expect(labels).toContainEqual(expect.stringMatching(/^Step 2: Edit: 1 added, 2 changed, /));
    expect(labels).toContainEqual(expect.stringMatching(/^Step 2: read_file \(failed\), /));
    const current = within(map).getByRole("button", { current: "step" });
    expect(current).toHaveAccessibleName(/^Step 3: csv_report\.summarize, /);
    expect(current.querySelector("title")?.textContent).toMatch(/You are here/);
    expect(current.querySelector(".map-ring")).not.toBeNull();
    const active = nodes
      .filter((n) => n.classList.contains("map-node-active"))
      .map((n) => n.getAttribute("data-node-id"));
    expect(active).toEqual(["root", "a", "b1", "c"]);
    expect(map.querySelectorAll(".map-edge-active")).toHaveLength(3);
    // Different kinds, different shapes: square start, diamond edit, circle tool.
    expect(nodes[0]!.querySelector("rect.map-shape")).not.toBeNull();
    expect(map.querySelector('[data-node-id="b1"] polygon.map-shape')).not.toBeNull();
    expect(current.querySelector("circle.map-shape")).not.toBeNull();
  });

  it("labels every node, those at a branch point too, each on a row of its own", async () => {
    mockCommands({ chat_tree: () => branched(), list_tool_calls: () => calls });
    render(<ConversationMap chats={chats()} />);
    const map = await shown();
    const nodes = within(map).getAllByRole("button");
    expect(nodes).toHaveLength(7);
    const row = (g: HTMLElement) => g.querySelector(".map-hit")!.getAttribute("cy");
    expect(new Set(nodes.map(row)).size).toBe(7);
    const words = Object.fromEntries(
      nodes.map((g) => [g.getAttribute("data-node-id"), g.querySelector(".map-label")?.textContent ?? ""]),
    );
    // a's three children: the edit, the failed read_file and delete_file.
    expect(words).toMatchObject({ b1: "edit, 1 added, 2 changed", b2: "read_file", b3: "delete_file" });
    for (const g of nodes) {
      expect(g.querySelector(".map-label")?.textContent ?? "").not.toBe("");
      // The whole label is in the tooltip, however the text is cut.
      expect(g.querySelector("title")?.textContent).toContain(g.getAttribute("aria-label"));
    }
  });

  it("jumps to a clicked node: checkout, then moved; busy meanwhile, and the current node does nothing", async () => {
    const pending = deferred<Chat>();
    const ipc = mockCommands({
      chat_tree: () => branched(),
      list_tool_calls: () => calls,
      checkout: () => pending.promise,
    });
    const moved = vi.fn();
    const show = vi.fn();
    render(<ConversationMap chats={chats({ moved, show })} />);
    const map = await shown();
    await userEvent.click(within(map).getByRole("button", { current: "step" }));
    expect(argsOf(ipc, "checkout")).toEqual([]);

    await userEvent.click(within(map).getByRole("button", { name: /^Step 2: read_file/ }));
    expect(argsOf(ipc, "checkout").map(({ onProgress: _p, ...a }) => a)).toEqual([
      { chatId: "chat-1", messageId: "b2" },
    ]);
    // The workspace is told at once which files to show.
    expect(show).toHaveBeenCalledWith("man-b2");
    expect(screen.getByRole("status")).toHaveTextContent("Bringing that workspace back…");
    expect(map.parentElement).toHaveAttribute("aria-busy", "true");
    // A second click while the first runs is ignored.
    await userEvent.click(within(map).getByRole("button", { name: /^Step 1: write_file/ }));
    expect(argsOf(ipc, "checkout")).toHaveLength(1);
    expect(moved).not.toHaveBeenCalled();

    await act(async () => pending.resolve(chat({ active_leaf_message_id: "b2", active_manifest_id: "man-b2" })));
    expect(moved).toHaveBeenCalledTimes(1);
    expect(moved).toHaveBeenCalledWith("man-b2");
    expect(map.parentElement).toHaveAttribute("aria-busy", "false");
    expect(screen.queryByRole("status")).toBeNull();
  });

  it("jumps from the keyboard with Enter or Space on a focused node", async () => {
    const ipc = mockCommands({ chat_tree: () => branched(), list_tool_calls: () => calls, checkout: () => chat() });
    const moved = vi.fn();
    render(<ConversationMap chats={chats({ moved })} />);
    const map = await shown();
    const d = within(map).getByRole("button", { name: /^Step 3: list_files/ });
    d.focus();
    expect(d).toHaveFocus();
    await userEvent.keyboard("{Enter}");
    await waitFor(() => expect(moved).toHaveBeenCalledTimes(1));
    await userEvent.keyboard(" ");
    await waitFor(() => expect(moved).toHaveBeenCalledTimes(2));
    expect(argsOf(ipc, "checkout").map((a) => a.messageId)).toEqual(["d", "d"]);
  });

  it("is one Tab stop, on the current step; ↑ ↓ Home End move between the steps", async () => {
    mockCommands({ chat_tree: () => branched(), list_tool_calls: () => calls, checkout: () => chat() });
    render(<ConversationMap chats={chats()} />);
    const map = await shown();
    const steps = within(map).getAllByRole("button");
    const names = (els: Element[]) => els.map((el) => el.getAttribute("data-node-id"));
    // Drawn rows: root, a, b2, d, b3, b1, c (current).
    expect(names(steps)).toEqual(["root", "a", "b2", "d", "b3", "b1", "c"]);
    expect(names(steps.filter((el) => el.getAttribute("tabindex") === "0"))).toEqual(["c"]);
    await userEvent.tab();
    expect(steps[6]).toHaveFocus();
    await userEvent.keyboard("{ArrowUp}{ArrowUp}");
    expect(steps[4]).toHaveFocus();
    await userEvent.keyboard("{Home}");
    expect(steps[0]).toHaveFocus();
    await userEvent.keyboard("{ArrowUp}{ArrowDown}");
    expect(steps[1]).toHaveFocus();
    await userEvent.keyboard("{End}");
    expect(steps[6]).toHaveFocus();
    await userEvent.keyboard("{ArrowUp}");
    // Tab leaves the map from any step, and comes back to the one left.
    await userEvent.tab();
    expect(map).not.toContainElement(document.activeElement as HTMLElement);
    await userEvent.tab({ shift: true });
    expect(steps[5]).toHaveFocus();
    expect(names(steps.filter((el) => el.getAttribute("tabindex") === "0"))).toEqual(["b1"]);
  });

  it("shows a failed jump where it happened", async () => {
    mockCommands({
      chat_tree: () => branched(),
      list_tool_calls: () => calls,
      checkout: () => {
        throw { kind: "corrupt_blob", message: "blob ab of a.txt is corrupt" };
      },
    });
    const moved = vi.fn();
    render(<ConversationMap chats={chats({ moved })} />);
    const map = await shown();
    fireEvent.click(within(map).getByRole("button", { name: /^Step 1: write_file/ }));
    const alert = await screen.findByRole("alert");
    expect(alert).toHaveTextContent("Could not go there.");
    expect(alert).toHaveTextContent("blob ab of a.txt is corrupt");
    // The files shown for the jump go: every view reads where the chat is.
    expect(moved).toHaveBeenCalledWith();
    await userEvent.click(within(alert).getByRole("button", { name: "Dismiss" }));
    expect(screen.queryByRole("alert")).toBeNull();
  });

  it("reads the tree again on a new revision, keeping the old map up meanwhile", async () => {
    let tree = branched();
    const next = deferred<MessageNode[]>();
    const ipc = mockCommands({
      chat_tree: () => (argsOf(ipc, "chat_tree").length === 1 ? tree : next.promise),
      list_tool_calls: () => calls,
    });
    const { rerender } = render(<ConversationMap chats={chats()} />);
    await shown();
    expect(screen.getByText("6 steps")).toBeInTheDocument();

    tree = [...branched(["root", "a", "b3", "e"])];
    tree.find((n) => n.id === "b3")!.children = ["e"];
    tree.push(
      node("e", "b3", { role: "edit", content: [{ type: "workspace_edit", added: 0, removed: 1, modified: 0 }] }),
    );
    rerender(<ConversationMap chats={chats({ revision: 1 })} />);
    await waitFor(() => expect(argsOf(ipc, "chat_tree")).toHaveLength(2));
    expect(screen.getByRole("group", { name: "Conversation tree" })).toBeInTheDocument();
    expect(screen.getByRole("button", { current: "step" })).toHaveAccessibleName(/^Step 3: csv_report/);

    await act(async () => next.resolve(tree));
    expect(screen.getByText("7 steps")).toBeInTheDocument();
    expect(screen.getByRole("button", { current: "step" })).toHaveAccessibleName(/^Step 3: Edit: 1 removed, /);
  });

  it("draws a 2,000-step chat as a few nodes, scrolled to the current one; a folded run opens on click", async () => {
    const ipc = mockCommands({ chat_tree: () => chain(2000), list_tool_calls: () => [] });
    render(<ConversationMap chats={chats()} />);
    const map = await shown();
    expect(screen.getByText("2,000 steps")).toBeInTheDocument();
    expect(within(map).getAllByRole("button").length).toBeLessThanOrEqual(8);
    expect(map.parentElement!.scrollTop).toBeGreaterThan(0);
    const run = within(map).getByRole("button", { name: /^1,996 steps folded \(steps 1–1,996\)/ });
    expect(run).toHaveTextContent("⋯ 1,996 steps");

    // fireEvent and selectors here: userEvent and role queries over 2,000
    // SVG nodes take seconds in jsdom.
    fireEvent.click(run);
    expect(map.querySelectorAll('[role="button"]')).toHaveLength(2001);
    expect(argsOf(ipc, "checkout")).toEqual([]); // opening a run moves nothing
    fireEvent.click(screen.getByText("Fold long runs again"));
    expect(within(map).getAllByRole("button").length).toBeLessThanOrEqual(8);
  }, 20_000);
});

// A conversation with a model: the person asks, the model calls a tool,
// the tool answers, the model answers; the question was edited once (a
// sibling), and a retry of the answer failed.
//
// root ─ q1 ─┬─ t1 (calls) ─ k1 (tool) ─ a1 (answer)     active
//            └─ a2 (failed retry)
//       q2 (edited question, no answer yet)
function conversation(): MessageNode[] {
  const meta = (status: string, error: string | null = null) => ({
    provider_id: "local",
    model: "tiny",
    usage: null,
    status,
    error,
    error_kind: error === null ? null : "network",
  });
  return [
    node("root", null, { children: ["q1", "q2"] }),
    node("q1", "root", {
      role: "user",
      content: [{ type: "text", text: "Summarize the sales figures\nfor March, please: which region grew most?" }],
      children: ["t1", "a2"],
    }),
    node("t1", "q1", {
      role: "assistant",
      content: [
        { type: "reasoning", text: "I should look at the CSV." },
        { type: "model_call", call_id: "m1", name: "csv-report.summarize", arguments: { path: "sales.csv" } },
      ],
      meta: meta("complete"),
      children: ["k1"],
    }),
    node("k1", "t1", { content: [{ type: "tool_call", tool_call_id: "call-k1" }], children: ["a1"] }),
    node("a1", "k1", {
      role: "assistant",
      content: [{ type: "text", text: "March sales rose 12%, led by the North region." }],
      meta: meta("complete"),
    }),
    node("a2", "q1", {
      role: "assistant",
      content: [],
      meta: meta("failed", "Ollama is not running at localhost:11434"),
      on_active_branch: false,
    }),
    node("q2", "root", {
      role: "user",
      content: [{ type: "image", path: "uploads/chart.png", media_type: "image/png" }],
      on_active_branch: false,
    }),
  ];
}

describe("conversation map of a chat with a model", () => {
  it("draws the model's turns apart from tool calls and the person's messages, each with words", async () => {
    mockCommands({
      chat_tree: () => conversation(),
      list_tool_calls: () => [call({ id: "call-k1", node_id: "k1", tool_id: "csv-report:summarize" })],
    });
    render(<ConversationMap chats={chats()} />);
    const map = await shown();
    const at = (id: string) => map.querySelector<SVGGElement>(`[data-node-id="${id}"]`)!;
    const words = (id: string) => at(id).querySelector(".map-label")?.textContent;
    const name = (id: string) => at(id).getAttribute("aria-label");

    // Every node has words beside it, the branch point's children too.
    // (Cut to the sidebar's width after a whole word; the whole start is in the name.)
    expect(words("q1")).toBe("Summarize the sales …");
    expect(words("t1")).toMatch(/^calls csv-report\.summ/);
    expect(words("k1")).toBe("csv-report:summarize");
    expect(words("a1")).toMatch(/^March sales rose 12%/);
    expect(words("a2")).toBe("failed");
    expect(words("q2")).toBe("an image");
    expect(name("q1")).toMatch(/^Step 1: Message: Summarize the sales figures for March, …, /);
    expect(name("t1")).toMatch(/^Step 2: Answer: calls csv-report\.summarize, /);
    expect(name("a1")).toMatch(/^Step 4: Answer: March sales rose 12%/);
    expect(name("a2")).toMatch(/^Step 2: Answer: failed, /);

    // Three shapes: the person's rounded box, the model's hexagon, the tool's circle.
    for (const id of ["q1", "q2"]) expect(at(id).querySelector("rect.map-shape")).not.toBeNull();
    for (const id of ["t1", "a1", "a2"]) {
      expect(at(id)).toHaveClass("map-kind-answer");
      expect(at(id).querySelector("polygon.map-shape")?.getAttribute("points")?.split(" ")).toHaveLength(6);
    }
    expect(at("k1").querySelector("circle.map-shape")).not.toBeNull();
    // A failed turn is drawn as failed; the answer on the active branch is the current node.
    expect(at("a2")).toHaveClass("map-node-failed");
    expect(at("a1")).toHaveAttribute("aria-current", "step");
  });
});
