import { act, render, screen, waitFor, within } from "@testing-library/react";
import { emit } from "@tauri-apps/api/event";
import userEvent from "@testing-library/user-event";
import { describe, expect, it } from "vitest";
import { App } from "../src/App";
import type { Chat, ToolCallRecord } from "../src/bindings";
import { call, chat, linearTree, plan, tool, toolset } from "./fixtures";
import { argsOf, mockCommands } from "./ipc";

const writeFile = tool({
  tool_id: "app-builder:write_file",
  toolset_id: "app-builder",
  input_schema: {
    type: "object",
    properties: { path: { type: "string" }, content: { type: "string" } },
    required: ["path", "content"],
  },
});

describe("the app", () => {
  it("creates a chat on the first run and shows the call, rendered, in the list", async () => {
    const chats: Chat[] = [];
    const recorded: ToolCallRecord[] = [];
    const calls = mockCommands({
      list_chats: () => [...chats],
      create_chat: (a) => {
        const c = chat({ id: "chat-new", title: a.title as string });
        chats.push(c);
        return c;
      },
      list_toolsets: () => [toolset()],
      get_available_tools: () => [writeFile],
      list_tool_calls: (a) => recorded.filter((c) => c.chat_id === a.chatId),
      chat_tree: () => linearTree(recorded),
      validate_tool_args: () => [],
      run_tool: (a) => {
        const c = call({
          id: "call-new",
          chat_id: a.chatId as string,
          tool_id: a.toolId as string,
          args: a.args as ToolCallRecord["args"],
          render_plan: plan("code", { file: "hello.py", language: "auto" }, { manifest_id: "m-1" }),
        });
        recorded.push(c);
        return c;
      },
      get_workspace_file: () => ({ path: "hello.py", size: 14, sha256: "ab", text: "print('hi')" }),
    });
    render(<App />);
    expect(await screen.findByText(/No chat yet\. Create one/)).toBeInTheDocument();
    await userEvent.click(screen.getByRole("tab", { name: "Chat" }));
    await userEvent.click(await screen.findByRole("option", { name: /Write File/ }));
    await userEvent.type(screen.getByLabelText(/^path/), "hello.py");
    await userEvent.type(screen.getByLabelText(/^content/), "print('hi')");
    await userEvent.click(screen.getByRole("button", { name: "Run" }));

    const card = await screen.findByRole("article", { name: "Call of app-builder:write_file" });
    await waitFor(() => expect(card.querySelector(".cm-line")).toHaveTextContent("print('hi')"));
    expect(argsOf(calls, "create_chat")).toEqual([{ title: "New chat" }]);
    expect(argsOf(calls, "run_tool")[0]).toMatchObject({ chatId: "chat-new", toolId: expect.any(String) as string });
    expect(within(card).getByText("success")).toBeInTheDocument();
    expect(
      within(screen.getByRole("list", { name: "Chat list" })).getByRole("button", { name: "New chat" }),
    ).toHaveAttribute("aria-current", "true");
  });

  it("lists the current chat's calls oldest first and appends new ones last", async () => {
    const older = call({
      id: "c1",
      node_id: "n1",
      tool_id: "write_file",
      render_plan: plan("code", { content: "first" }),
    });
    const newer = call({
      id: "c2",
      node_id: "n2",
      tool_id: "read_file",
      render_plan: plan("code", { content: "second" }),
    });
    const recorded = [older, newer];
    mockCommands({
      list_chats: () => [chat()],
      list_toolsets: () => [],
      get_available_tools: () => [tool({ input_schema: { type: "object", properties: {} } })],
      list_tool_calls: () => [...recorded],
      chat_tree: () => linearTree(recorded),
      validate_tool_args: () => [],
      run_tool: () => {
        const c = call({
          id: "c3",
          node_id: "n3",
          tool_id: "write_file",
          render_plan: plan("code", { content: "third" }),
        });
        recorded.push(c);
        return c;
      },
    });
    render(<App />);
    await userEvent.click(screen.getByRole("tab", { name: "Chat" }));
    await screen.findAllByRole("article");
    await userEvent.click(await screen.findByRole("option", { name: /Write File/ }));
    await userEvent.click(screen.getByRole("button", { name: "Run" }));
    await waitFor(() => expect(screen.getAllByRole("article")).toHaveLength(3));
    await waitFor(() =>
      expect(screen.getAllByRole("article").map((a) => a.querySelector(".cm-line")?.textContent)).toEqual([
        "first",
        "second",
        "third",
      ]),
    );
  });

  it("runs a call again from its arguments, edited in the prefilled form", async () => {
    const first = call({
      id: "c1",
      node_id: "n1",
      tool_id: "app-builder:write_file",
      args: { path: "a.txt", content: "one" },
      render_plan: plan("code", { content: "one" }),
    });
    const recorded = [first];
    const calls = mockCommands({
      list_chats: () => [chat()],
      list_toolsets: () => [toolset()],
      get_available_tools: () => [writeFile],
      list_tool_calls: () => [...recorded],
      chat_tree: () => linearTree(recorded),
      validate_tool_args: () => [],
      run_tool: (a) => {
        const c = call({
          id: "c2",
          node_id: "n2",
          tool_id: a.toolId as string,
          args: a.args as ToolCallRecord["args"],
          render_plan: plan("code", { content: "two" }),
        });
        recorded.push(c);
        return c;
      },
    });
    render(<App />);
    await userEvent.click(screen.getByRole("tab", { name: "Chat" }));
    const card = await screen.findByRole("article", { name: "Call of app-builder:write_file" });
    await userEvent.click(within(card).getByRole("button", { name: "Run again…" }));
    const content = await screen.findByLabelText(/^content/);
    expect(screen.getByLabelText(/^path/)).toHaveValue("a.txt");
    expect(content).toHaveValue("one");
    await userEvent.clear(content);
    await userEvent.type(content, "edited");
    await userEvent.click(screen.getByRole("button", { name: "Run" }));
    await waitFor(() => expect(argsOf(calls, "run_tool")).toHaveLength(1));
    expect(argsOf(calls, "run_tool")[0]).toMatchObject({
      toolId: "app-builder:write_file",
      args: { path: "a.txt", content: "edited" },
    });
    await waitFor(() => expect(screen.getAllByRole("article")).toHaveLength(2));
  });

  it("offers the tools of servers listed after the app started (the shell's mcp-tools-listed)", async () => {
    let listed = false;
    const echo = tool({ tool_id: "fx:echo", toolset_id: null, name: "echo", description: "Echoes" });
    mockCommands({
      list_chats: () => [],
      list_toolsets: () => [],
      get_available_tools: () => (listed ? [writeFile, echo] : [writeFile]),
    });
    render(<App />);
    await userEvent.click(screen.getByRole("tab", { name: "Chat" }));
    expect(await screen.findByRole("option", { name: /Write File/ })).toBeInTheDocument();
    expect(screen.queryByRole("option", { name: /fx:echo/ })).toBeNull();
    listed = true;
    await act(() => emit("mcp-tools-listed", ["fx"]));
    expect(await screen.findByRole("option", { name: /fx:echo/ })).toBeInTheDocument();
  });
});
