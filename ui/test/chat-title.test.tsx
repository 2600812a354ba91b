// A chat is named after its first step while it still has the title it was
// made with; a title the person chose is kept.
import { render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it } from "vitest";
import { App } from "../src/App";
import type { Chat, ToolCallRecord } from "../src/bindings";
import { stepTitle } from "../src/chats/useChats";
import { call, chat, linearTree, plan, tool, toolset } from "./fixtures";
import { argsOf, mockCommands } from "./ipc";

const writeFile = tool({
  tool_id: "app-builder:write_file",
  toolset_id: "app-builder",
  name: "Write File",
  input_schema: {
    type: "object",
    properties: { path: { type: "string" }, content: { type: "string" } },
    required: ["path"],
  },
});

function mockApp(chats: Chat[]) {
  const recorded: ToolCallRecord[] = [];
  return mockCommands({
    list_chats: () => [...chats],
    create_chat: (a) => {
      const c = chat({ id: "chat-new", title: String(a.title) });
      chats.push(c);
      return c;
    },
    rename_chat: (a) => {
      const c = chats.find((x) => x.id === a.chatId)!;
      c.title = String(a.title);
      return { ...c };
    },
    list_toolsets: () => [toolset()],
    get_available_tools: () => [writeFile],
    list_tool_calls: (a) => recorded.filter((c) => c.chat_id === a.chatId),
    chat_tree: () => linearTree(recorded),
    validate_tool_args: () => [],
    run_tool: (a) => {
      const c = call({
        id: `call-${recorded.length + 1}`,
        node_id: `n${recorded.length + 1}`,
        chat_id: String(a.chatId),
        tool_id: String(a.toolId),
        args: a.args as ToolCallRecord["args"],
        render_plan: plan("code", { content: "ok" }),
      });
      recorded.push(c);
      return c;
    },
  });
}

async function runWriteFile(path: string) {
  await userEvent.click(screen.getByRole("tab", { name: "Chat" }));
  await userEvent.click(await screen.findByRole("option", { name: /Write File/ }));
  await userEvent.type(screen.getByLabelText(/^path/), path);
  await userEvent.click(screen.getByRole("button", { name: "Run" }));
}

describe("chat titles", () => {
  it("names a new chat after its first step", async () => {
    const calls = mockApp([]);
    render(<App />);
    await screen.findByText(/No chat yet\. Create one/);
    await runWriteFile("notes.md");
    await waitFor(() => expect(argsOf(calls, "rename_chat")).toHaveLength(1));
    const list = screen.getByRole("list", { name: "Chat list" });
    expect(await within(list).findByRole("button", { name: "Write File: notes.md" })).toHaveAttribute(
      "aria-current",
      "true",
    );
    expect(argsOf(calls, "rename_chat")).toEqual([{ chatId: "chat-new", title: "Write File: notes.md" }]);
  });

  it("keeps a title the person chose", async () => {
    const calls = mockApp([chat({ id: "chat-1", title: "Budget 2027" })]);
    render(<App />);
    await screen.findByRole("button", { name: "Budget 2027" });
    await runWriteFile("plan.md");
    await screen.findByRole("article", { name: "Call of app-builder:write_file" });
    await waitFor(() => expect(argsOf(calls, "run_tool")).toHaveLength(1));
    expect(argsOf(calls, "rename_chat")).toEqual([]);
  });

  it("says a step in a few words", () => {
    expect(stepTitle("Write File", { path: "notes.md", content: "long\ntext" })).toBe("Write File: notes.md");
    expect(stepTitle("Echo", {})).toBe("Echo");
    expect(stepTitle("Run", { command: "x".repeat(100) })).toHaveLength(60);
  });
});
