// axe-core over the app's main views, as the tests mount them (mocked IPC):
// no violation of impact serious or critical. jsdom lays nothing out and
// paints nothing, so axe cannot compute colour contrast here: that rule is
// off, and the desktop E2E (e2e/steps/a11y.mjs) checks it in the real
// webview. A few rules of lesser impact count too (MODERATE): a skipped
// heading level leaves a screen reader's outline of the page with a hole.
import { render, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import axe from "axe-core";
import { describe, expect, it, vi } from "vitest";
import { App } from "../src/App";
import { ConversationMap } from "../src/chats/ConversationMap";
import { McpServersSection } from "../src/settings/mcp/McpServersSection";
import { ToolsetManager } from "../src/toolsets/ToolsetManager";
import { chatBackend, deleteWaitsForApproval, message, meta, openChat, text } from "./chatBackend";
import { bundle, call, chatsStub, details, mcpServer, node, plan, tool, toolset } from "./fixtures";
import { mockCommands } from "./ipc";

/** Rules of moderate impact that fail the test as the serious ones do. */
const MODERATE = ["heading-order"];

/** The serious and critical violations (and MODERATE's), one line each (rule, target, what). */
async function violations(root: Element = document.body): Promise<string[]> {
  const result = await axe.run(root, {
    rules: { "color-contrast": { enabled: false } },
    resultTypes: ["violations"],
  });
  return result.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical" || MODERATE.includes(v.id))
    .flatMap((v) => v.nodes.map((n) => `${v.id}: ${n.target.join(" ")} — ${v.help}`));
}

// axe looks for icon fonts on a canvas, which jsdom has not.
HTMLCanvasElement.prototype.getContext = () => null;

const settings = () => ({ saved: { frame_origins: [] }, frame_origins_in_effect: [] });

describe("axe finds no serious or critical violation", () => {
  it("in an empty app (the chat tab) and with the shortcuts open", async () => {
    mockCommands({
      list_chats: () => [],
      list_toolsets: () => [],
      get_available_tools: () => [tool()],
      get_settings: settings,
    });
    render(<App />);
    await screen.findByText(/No chat yet\. Create one/);
    expect(await violations()).toEqual([]);
    await userEvent.click(screen.getByRole("button", { name: "Keyboard shortcuts" }));
    screen.getByRole("dialog", { name: "Keyboard shortcuts" });
    expect(await violations()).toEqual([]);
  });

  it("in a chat with an answer, a tool's card, the tool list and a call waiting for approval", async () => {
    const b = chatBackend({
      messages: [
        message("u1", "m0", "user", [text("Write notes.md")]),
        message("a1", "u1", "assistant", [text("Done: **notes.md** has the notes.\n\n```python\nprint(1)\n```")], {
          meta: meta({ usage: { input_tokens: 1200, output_tokens: 34 } }),
        }),
      ],
      extra: {
        get_available_tools: () => [tool(), tool({ tool_id: "delete_file", name: "Delete File" })],
        list_tool_calls: () => [call({ id: "call-1", node_id: "a1", render_plan: plan("json", {}) })],
        answer_approval: () => true,
      },
    });
    const box = await openChat();
    await screen.findByText("notes.md", { selector: "strong" });
    expect(await violations()).toEqual([]);

    await userEvent.click(screen.getByRole("button", { name: "☰ Tools" }));
    // A tool highlighted from the search: the combobox's active option.
    await userEvent.type(await screen.findByRole("combobox", { name: "Search tools" }), "delete");
    expect(screen.getByRole("option", { name: /Delete File/, selected: true })).toBeInTheDocument();
    expect(await violations()).toEqual([]);

    await deleteWaitsForApproval(b, box);
    const card = await screen.findByRole("article", { name: "Call of delete_file" });
    await within(card).findByRole("button", { name: "Approve" });
    expect(await violations()).toEqual([]);
  });

  it("on the Chat tab, the chat's title (h1) heads the outline, before the tool list's heading", async () => {
    chatBackend({ messages: [message("u1", "m0", "user", [text("Hi")])] });
    await openChat();
    await userEvent.click(await screen.findByRole("button", { name: "☰ Tools" }));
    const panel = await screen.findByRole("tabpanel", { name: "Chat" });
    await within(panel).findByRole("heading", { name: "Tools", level: 2 });
    const outline = [...panel.querySelectorAll("h1, h2, h3, h4, h5, h6")].map(
      (h) => `${h.tagName} ${h.textContent ?? ""}`,
    );
    expect(outline.slice(0, 2)).toEqual(["H1 First chat", "H2 Tools"]);
  });

  it("in a failed answer's error and a deleted chat's Undo", async () => {
    chatBackend({
      messages: [
        message("u1", "m0", "user", [text("Hi")]),
        message("a1", "u1", "assistant", [], {
          meta: meta({ status: "failed", error: "error sending request", error_kind: "network" }),
        }),
      ],
    });
    await openChat();
    await screen.findByText("error sending request");
    expect(await violations()).toEqual([]);
    await userEvent.click(screen.getByRole("button", { name: "Delete First chat" }));
    screen.getByRole("button", { name: "Undo deleting “First chat”" });
    expect(await violations()).toEqual([]);
  });

  it("in the conversation map", async () => {
    mockCommands({
      chat_tree: () => [
        node("root", null, { children: ["a"] }),
        node("a", "root", { content: [{ type: "tool_call", tool_call_id: "ca" }], children: ["b1", "b2"] }),
        node("b1", "a", { role: "user", content: [{ type: "text", text: "Summarize sales.csv per region" }] }),
        node("b2", "a", { on_active_branch: false, content: [{ type: "tool_call", tool_call_id: "cb" }] }),
      ],
      list_tool_calls: () => [
        call({ id: "ca", node_id: "a", tool_id: "data-pipeline-toolkit:normalize_and_deduplicate_customer_records" }),
        call({ id: "cb", node_id: "b2", tool_id: "read_file", status: "error" }),
      ],
    });
    render(<ConversationMap chats={chatsStub()} />);
    await screen.findByRole("group", { name: "Conversation tree" });
    expect(await violations()).toEqual([]);
  });

  it("in Toolsets, a confirmation dialog and a bundle's review before install", async () => {
    const app = toolset({ id: "app-builder", name: "App Builder" });
    mockCommands({
      list_toolsets: () => [app],
      get_toolset: () => details(app, [tool({ tool_id: "app-builder:read_file" })]),
      pick_bundle: () => "/home/me/csv-report.zip",
      check_bundle: () =>
        bundle({ problems: [{ severity: "warning", path: "x-extra", line: 12, column: 1, message: "unknown key" }] }),
    });
    render(<ToolsetManager active onChanged={vi.fn()} />);
    await screen.findByRole("listitem", { name: "App Builder" });
    expect(await violations()).toEqual([]);
    await userEvent.click(
      within(screen.getByRole("listitem", { name: "App Builder" })).getByRole("button", { name: "Details" }),
    );
    await screen.findByText("app-builder:read_file");
    expect(await violations()).toEqual([]);
    await userEvent.click(
      within(screen.getByRole("listitem", { name: "App Builder" })).getByRole("button", { name: "Uninstall" }),
    );
    const confirm = screen.getByRole("alertdialog", { name: "Uninstall App Builder?" });
    expect(await violations()).toEqual([]);
    await userEvent.click(within(confirm).getByRole("button", { name: "Cancel" }));
    await userEvent.click(screen.getByRole("button", { name: "Import…" }));
    await screen.findByRole("button", { name: "Install" });
    expect(await violations()).toEqual([]);
  });

  it("in Settings: providers, agents, the secret store", async () => {
    chatBackend({ extra: { get_settings: settings } });
    render(<App />);
    await userEvent.click(await screen.findByRole("tab", { name: "Settings" }));
    await screen.findByRole("heading", { name: "Model providers" });
    await screen.findByRole("heading", { name: "Secrets" });
    expect(await violations()).toEqual([]);
  });

  it("in the MCP servers, each status in words", async () => {
    mockCommands({
      list_mcp_servers: () => [
        {
          server: mcpServer({ id: "everything" }),
          status: "connected",
          message: null,
          instances: [{ chat_id: null, status: "connected", pid: 4242 }],
          stderr: [],
        },
        {
          server: mcpServer({ id: "broken" }),
          status: "error",
          message: "the server exited",
          instances: [],
          stderr: ["boom"],
        },
      ],
    });
    render(<McpServersSection active onChanged={() => {}} />);
    await screen.findByRole("list", { name: "MCP servers" });
    expect(await violations()).toEqual([]);
    await userEvent.click(
      within(screen.getByRole("listitem", { name: "everything" })).getByRole("button", { name: "Details" }),
    );
    expect(await violations()).toEqual([]);
  });

  it("in the Workspace tab", async () => {
    chatBackend({ extra: { get_settings: settings } });
    render(<App />);
    await userEvent.click(await screen.findByRole("tab", { name: "Workspace" }));
    await screen.findByRole("tabpanel", { name: "Workspace" });
    expect(await violations()).toEqual([]);
  });
});
