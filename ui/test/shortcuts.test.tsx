import { act, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
import { App } from "../src/App";
import { BranchView } from "../src/calls/BranchView";
import { actionFor, useShortcutKeys } from "../src/lib/shortcuts";
import { call, chat, node, plan, tool } from "./fixtures";
import { argsOf, mockCommands } from "./ipc";

const key = (init: KeyboardEventInit, target: EventTarget = document.body) => {
  const e = new KeyboardEvent("keydown", { bubbles: true, ...init });
  Object.defineProperty(e, "target", { value: target });
  return e;
};

describe("shortcuts", () => {
  it("map keys to actions; ? only when not typing", () => {
    expect(actionFor(key({ key: "n", ctrlKey: true }))).toBe("new-chat");
    expect(actionFor(key({ key: "Enter", metaKey: true }))).toBe("run-tool");
    expect(actionFor(key({ key: "3", ctrlKey: true }))).toBe("tab-3");
    expect(actionFor(key({ key: "ArrowLeft", altKey: true }))).toBe("prev-sibling");
    expect(actionFor(key({ key: "?" }))).toBe("help");
    expect(actionFor(key({ key: "?" }, document.createElement("input")))).toBeNull();
    expect(actionFor(key({ key: "n" }))).toBeNull();
  });

  it("open the help, make a chat, switch tabs and focus the tool search in the app", async () => {
    const calls = mockCommands({
      list_chats: () => [],
      create_chat: () => chat({ id: "c9", title: "New chat" }),
      list_toolsets: () => [],
      get_available_tools: () => [tool()],
      get_settings: () => ({ saved: { frame_origins: [] }, frame_origins_in_effect: [] }),
    });
    render(<App />);
    await screen.findByText(/No chat yet\. Create one/);
    fireEvent.keyDown(window, { key: "?" });
    const help = screen.getByRole("dialog", { name: "Keyboard shortcuts" });
    expect(within(help).getByText("Previous version of the last branch point")).toBeInTheDocument();
    fireEvent.keyDown(window, { key: "Escape" });
    expect(screen.queryByRole("dialog")).toBeNull();

    fireEvent.keyDown(window, { key: "n", ctrlKey: true });
    await waitFor(() => expect(argsOf(calls, "create_chat")).toHaveLength(1));
    fireEvent.keyDown(window, { key: "4", ctrlKey: true });
    expect(screen.getByRole("tab", { name: "Settings" })).toHaveAttribute("aria-selected", "true");
    fireEvent.keyDown(window, { key: "k", ctrlKey: true });
    expect(screen.getByRole("tab", { name: "Chat" })).toHaveAttribute("aria-selected", "true");
    await waitFor(() => expect(screen.getByRole("combobox", { name: "Search tools" })).toHaveFocus());
  });

  it("Alt+→ switches the last branch point to its next version", async () => {
    const calls = mockCommands({
      chat_tree: () => [
        node("root", null, { children: ["a"] }),
        node("a", "root", { children: ["b1", "b2"] }),
        node("b1", "a"),
        node("b2", "a", { on_active_branch: false }),
      ],
      switch_branch: () => chat({ active_leaf_message_id: "b2" }),
    });
    const a = call({ id: "ca", node_id: "a", render_plan: plan("code", { content: "A" }) });
    const b1 = call({ id: "cb1", node_id: "b1", render_plan: plan("code", { content: "B1" }) });
    function WithKeys() {
      useShortcutKeys(); // what the App does
      return <BranchView chatId="chat-1" calls={[a, b1]} version="1" focusId={null} onSwitched={vi.fn()} />;
    }
    render(<WithKeys />);
    await screen.findByRole("group", { name: "Other versions of this step" });
    await act(async () => {
      fireEvent.keyDown(window, { key: "ArrowLeft", altKey: true }); // already the first version
    });
    expect(argsOf(calls, "switch_branch")).toEqual([]);
    await act(async () => {
      fireEvent.keyDown(window, { key: "ArrowRight", altKey: true });
    });
    await waitFor(() => expect(argsOf(calls, "switch_branch")).toHaveLength(1));
    expect(argsOf(calls, "switch_branch")[0]).toMatchObject({ chatId: "chat-1", messageId: "b2" });
  });
});
