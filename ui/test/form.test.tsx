import { act, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import type { Channel } from "@tauri-apps/api/core";
import userEvent from "@testing-library/user-event";
import { describe, expect, it, vi } from "vitest";
import type { JsonValue, RunEvent, ToolCallRecord } from "../src/bindings";
import { initialArgs } from "../src/tools/form/schema";
import { LiveCalls } from "../src/calls/LiveCallCard";
import { RunsProvider } from "../src/calls/runs";
import { ToolRunner } from "../src/tools/ToolRunner";
import { call, tool } from "./fixtures";
import { argsOf, deferred, mockCommands, sendOnChannel, type Args } from "./ipc";

/** run_tool's arguments without the event channel (an object per call). */
const runArgs = (calls: ReturnType<typeof mockCommands>): Args[] =>
  argsOf(calls, "run_tool").map(({ onEvent: _channel, ...rest }) => rest);

const schema: JsonValue = {
  type: "object",
  properties: {
    path: { type: "string", description: "File path relative to workspace" },
    mode: { type: "string", enum: ["overwrite", "append"], default: "overwrite" },
    count: { type: "integer", minimum: 1, default: 3 },
    ratio: { type: ["number", "null"] },
    dry_run: { type: "boolean", description: "Only report what would change" },
    tags: { type: "array", items: { type: "string" } },
    options: {
      type: "object",
      description: "Formatting",
      properties: { indent: { type: "integer", default: 2 }, newline: { type: "boolean" } },
      required: ["indent"],
    },
    content: { type: "string" },
  },
  required: ["path", "mode"],
};
const formTool = tool({ tool_id: "demo:format", toolset_id: "demo", name: "Format", input_schema: schema });

function setup(t = formTool, handlers: Parameters<typeof mockCommands>[0] = {}) {
  const onCall = vi.fn();
  const ensureChat = vi.fn(() => Promise.resolve("chat-1"));
  const calls = mockCommands({
    validate_tool_args: () => [],
    run_tool: () => call({ tool_id: t.tool_id }),
    ...handlers,
  });
  render(
    <RunsProvider>
      <ToolRunner tool={t} chatId="chat-1" ensureChat={ensureChat} onCall={onCall} />
      <LiveCalls chatId="chat-1" />
    </RunsProvider>,
  );
  return { calls, onCall, ensureChat };
}

const rawText = () => (screen.getByRole("textbox", { name: "Arguments as JSON" }) as HTMLTextAreaElement).value;

describe("schema form", () => {
  it("starts from defaults", () => {
    expect(initialArgs(schema)).toEqual({ mode: "overwrite", count: 3, options: { indent: 2 } });
  });

  it("generates inputs by type, with required markers and descriptions", () => {
    setup();
    expect(screen.getByLabelText(/^path/)).toHaveAttribute("type", "text");
    expect(screen.getByText("path").parentElement).toHaveTextContent("path *");
    expect(screen.getByText("File path relative to workspace")).toBeInTheDocument();
    const mode = screen.getByLabelText(/^mode/) as HTMLSelectElement;
    expect(mode.tagName).toBe("SELECT");
    expect([...mode.options].map((o) => o.text)).toEqual(["overwrite", "append"]);
    expect(mode.selectedOptions[0]?.text).toBe("overwrite");
    expect(screen.getByLabelText("count")).toHaveValue("3");
    expect(screen.getByLabelText("count")).toHaveAttribute("inputmode", "numeric");
    expect(screen.getByLabelText("ratio")).toHaveAttribute("inputmode", "decimal");
    expect(screen.getByLabelText("dry_run")).toHaveAttribute("type", "checkbox");
    expect(screen.getByText("Only report what would change")).toBeInTheDocument();
    const options = screen.getByRole("group", { name: "options" });
    expect(within(options).getByLabelText(/^indent/)).toHaveValue("2");
    expect(within(options).getByText("indent").parentElement).toHaveTextContent("indent *");
    expect(screen.getByLabelText("content").tagName).toBe("TEXTAREA");
    expect(screen.getByRole("group", { name: "tags" })).toHaveTextContent("Empty list.");
  });

  it("keeps the form and the raw JSON tab in step", async () => {
    setup();
    await userEvent.type(screen.getByLabelText(/^path/), "notes.md");
    await userEvent.click(screen.getByLabelText("dry_run"));
    await userEvent.click(screen.getByRole("button", { name: "Add tags item" }));
    await userEvent.type(screen.getByRole("textbox", { name: "tags item 1" }), "draft");
    await userEvent.selectOptions(screen.getByLabelText(/^mode/), "append");
    await userEvent.click(screen.getByRole("tab", { name: "Raw JSON" }));
    expect(JSON.parse(rawText())).toEqual({
      mode: "append",
      count: 3,
      options: { indent: 2 },
      path: "notes.md",
      dry_run: true,
      tags: ["draft"],
    });

    fireEvent.change(screen.getByRole("textbox", { name: "Arguments as JSON" }), {
      target: { value: '{"path": "b.txt", "mode": "overwrite", "count": 7}' },
    });
    await userEvent.click(screen.getByRole("tab", { name: "Form" }));
    expect(screen.getByLabelText(/^path/)).toHaveValue("b.txt");
    expect(screen.getByLabelText("count")).toHaveValue("7");
    expect(screen.getByLabelText("dry_run")).not.toBeChecked();
  });

  it("blocks the Form tab and Run on invalid JSON", async () => {
    setup();
    await userEvent.click(screen.getByRole("tab", { name: "Raw JSON" }));
    fireEvent.change(screen.getByRole("textbox", { name: "Arguments as JSON" }), { target: { value: "{ nope" } });
    expect(screen.getByRole("alert")).toHaveTextContent("Not valid JSON");
    expect(screen.getByRole("tab", { name: "Form" })).toBeDisabled();
    expect(screen.getByRole("button", { name: "Run" })).toBeDisabled();
    fireEvent.change(screen.getByRole("textbox", { name: "Arguments as JSON" }), { target: { value: "[1]" } });
    expect(screen.getByRole("alert")).toHaveTextContent("must be a JSON object");
  });
});

describe("running a tool", () => {
  it("validates through the core, then runs in the current chat", async () => {
    const { calls, onCall } = setup();
    await userEvent.type(screen.getByLabelText(/^path/), "a.txt");
    await userEvent.click(screen.getByRole("button", { name: "Run" }));
    await waitFor(() => expect(onCall).toHaveBeenCalledTimes(1));
    const args = { mode: "overwrite", count: 3, options: { indent: 2 }, path: "a.txt" };
    expect(argsOf(calls, "validate_tool_args")).toEqual([{ toolId: "demo:format", args }]);
    expect(runArgs(calls)).toEqual([{ chatId: "chat-1", toolId: "demo:format", args }]);
  });

  it("shows the core's problems under their fields and does not run", async () => {
    const { calls, onCall } = setup(formTool, {
      validate_tool_args: () => [{ field: ["path"], message: "Required" }],
    });
    await userEvent.click(screen.getByRole("button", { name: "Run" }));
    await waitFor(() => expect(screen.getByLabelText(/^path/)).toHaveAccessibleDescription("Required"));
    expect(argsOf(calls, "run_tool")).toEqual([]);
    expect(onCall).not.toHaveBeenCalled();
  });

  it("shows a confirmation inline on the call's card while the backend waits, and sends the answer", async () => {
    const confirmTool = tool({
      tool_id: "delete_file",
      name: "Delete File",
      requires_confirmation: true,
      input_schema: { type: "object", properties: { path: { type: "string" } } },
    });
    let done = deferred<ToolCallRecord>();
    let channel: Channel<RunEvent> | null = null;
    const { calls, onCall } = setup(confirmTool, {
      run_tool: (a) => {
        channel = a.onEvent as Channel<RunEvent>;
        return done.promise;
      },
      answer_approval: () => true,
      answer_approval_for_chat: () => true,
    });
    /** Runs the tool again; its call says it waits. */
    const runAgain = async (id: string) => {
      done = deferred<ToolCallRecord>();
      channel = null;
      await userEvent.click(screen.getByRole("button", { name: "Run" }));
      await waitFor(() => expect(channel).not.toBeNull());
      act(() =>
        sendOnChannel(channel!, [
          { kind: "started", call_id: id },
          { kind: "awaiting_approval", call_id: id },
        ]),
      );
    };
    await userEvent.type(screen.getByLabelText("path"), "old.txt");
    await userEvent.click(screen.getByRole("button", { name: "Run" }));
    await waitFor(() => expect(channel).not.toBeNull());
    expect(screen.getByText("Waiting for your approval in the call below.")).toBeInTheDocument();
    act(() =>
      sendOnChannel(channel!, [
        { kind: "started", call_id: "call-1" },
        { kind: "awaiting_approval", call_id: "call-1" },
      ]),
    );
    const card = screen.getByRole("article", { name: "Call of delete_file" });
    expect(card).toHaveTextContent("waiting for approval");
    expect(card).toHaveTextContent('"path": "old.txt"');
    // Denied: the backend records the call as denied and runs nothing.
    await userEvent.click(within(card).getByRole("button", { name: "Deny" }));
    expect(argsOf(calls, "answer_approval")).toEqual([{ callId: "call-1", approve: false }]);
    await act(async () => done.resolve(call({ tool_id: "delete_file", status: "error", error_kind: "denied" })));
    await waitFor(() => expect(onCall).toHaveBeenCalledTimes(1));
    expect(screen.queryByRole("article", { name: "Call of delete_file" })).toBeNull();

    await runAgain("call-2");
    await userEvent.click(
      within(screen.getByRole("group", { name: "Approval" })).getByRole("button", { name: "Approve" }),
    );
    expect(argsOf(calls, "answer_approval")[1]).toEqual({ callId: "call-2", approve: true });
    // Approved: the card turns into a running call, with Cancel.
    const running = screen.getByRole("article", { name: "Call of delete_file" });
    expect(running).toHaveTextContent("running");
    expect(within(running).getByRole("button", { name: "Cancel" })).toBeEnabled();
    expect(within(running).queryByRole("button", { name: "Approve" })).toBeNull();
    await act(async () => done.resolve(call({ tool_id: "delete_file" })));
    await waitFor(() => expect(onCall).toHaveBeenCalledTimes(2));

    // Allowed in this chat: one answer that also stops future questions here.
    await runAgain("call-3");
    const asked = screen.getByRole("group", { name: "Approval" });
    expect(asked).toHaveTextContent("lets delete_file run without asking in this chat");
    await userEvent.click(within(asked).getByRole("button", { name: "Allow for this chat" }));
    expect(argsOf(calls, "answer_approval_for_chat")).toEqual([{ callId: "call-3" }]);
    expect(argsOf(calls, "answer_approval")).toHaveLength(2);
    expect(screen.getByRole("article", { name: "Call of delete_file" })).toHaveTextContent("running");
    await act(async () => done.resolve(call({ tool_id: "delete_file" })));
    await waitFor(() => expect(onCall).toHaveBeenCalledTimes(3));
    expect(runArgs(calls).every((a) => !("approve" in a))).toBe(true);
  });

  it("lets the person make a tool always or never ask, loaded only when opened", async () => {
    const { calls } = setup(formTool, {
      tool_policy: () => ({ tool_id: "demo:format", policy: "default", requires_confirmation: false, asks: false }),
      set_tool_policy: (a) => ({
        tool_id: "demo:format",
        policy: a.policy as "allow",
        requires_confirmation: false,
        asks: a.policy === "ask",
      }),
    });
    expect(argsOf(calls, "tool_policy")).toHaveLength(0);
    await userEvent.click(screen.getByText("Confirmation"));
    const choice = await screen.findByRole("combobox", { name: /Before it runs/ });
    expect(choice).toHaveDisplayValue("Run without asking (its author's choice)");
    await userEvent.selectOptions(choice, "Always ask");
    expect(argsOf(calls, "set_tool_policy")).toEqual([{ toolId: "demo:format", policy: "ask" }]);
    await waitFor(() => expect(choice).toHaveDisplayValue("Always ask"));
  });

  it("shows the workspace walk and the output live while the call runs", async () => {
    const done = deferred<ToolCallRecord>();
    let channel: Channel<RunEvent> | null = null;
    const { onCall, calls } = setup(formTool, {
      run_tool: (a) => {
        channel = a.onEvent as Channel<RunEvent>;
        return done.promise;
      },
      cancel_tool_call: () => true,
    });
    await userEvent.type(screen.getByLabelText(/^path/), "a.txt");
    await userEvent.click(screen.getByRole("button", { name: "Run" }));
    await waitFor(() => expect(channel).not.toBeNull());
    const live = screen.getByRole("region", { name: "Running" });
    act(() =>
      sendOnChannel(channel!, [
        { kind: "workspace", files_done: 2500, files_total: 10000, bytes_done: 1 << 20, bytes_total: 4 << 20 },
        { kind: "output", stream: "stdout", text: "step 1 of 3\n" },
        { kind: "output", stream: "stderr", text: "warning: slow disk\n" },
      ]),
    );
    expect(live).toHaveTextContent("recording the workspace: 2,500 of 10,000 files (1.0 MB of 4.0 MB)");
    expect(screen.getByRole("progressbar", { name: "Workspace recorded" })).toHaveAttribute("value", "2500");
    expect(screen.getByLabelText("Output so far").textContent).toBe("step 1 of 3\nwarning: slow disk\n");
    expect(screen.getByRole("button", { name: "Running…" })).toBeDisabled();

    // The walk ends: its bar goes; the output stays until the call returns.
    act(() =>
      sendOnChannel(
        channel!,
        [{ kind: "workspace", files_done: 10000, files_total: 10000, bytes_done: 4 << 20, bytes_total: 4 << 20 }],
        3,
      ),
    );
    expect(screen.queryByRole("progressbar")).toBeNull();
    // The tool reports its own progress (an MCP server's notifications).
    act(() => sendOnChannel(channel!, [{ kind: "progress", progress: 3, total: 4, message: "step 3 of 4" }], 4));
    expect(live).toHaveTextContent("step 3 of 4 · 75%");
    expect(screen.getByRole("progressbar", { name: "Tool progress" })).toHaveAttribute("value", "3");
    // Once recorded, the call can be cancelled.
    expect(screen.queryByRole("button", { name: "Cancel" })).toBeNull();
    act(() => sendOnChannel(channel!, [{ kind: "started", call_id: "call-9" }], 5));
    await userEvent.click(screen.getByRole("button", { name: "Cancel" }));
    expect(argsOf(calls, "cancel_tool_call")).toEqual([{ callId: "call-9" }]);
    expect(screen.getByRole("button", { name: "Cancelling…" })).toBeDisabled();
    await act(async () => done.resolve(call({ tool_id: "demo:format", status: "cancelled" })));
    await waitFor(() => expect(onCall).toHaveBeenCalledTimes(1));
    expect(screen.queryByRole("region", { name: "Running" })).toBeNull();
  });

  it("shows a run that the backend refused where it happened", async () => {
    setup(formTool, {
      run_tool: () => {
        throw { kind: "tool_not_found", message: "tool not found: demo:format" };
      },
    });
    await userEvent.type(screen.getByLabelText(/^path/), "a.txt");
    await userEvent.click(screen.getByRole("button", { name: "Run" }));
    expect(await screen.findByRole("alert")).toHaveTextContent("tool not found: demo:format");
  });
});

describe("elapsed time on a live card", () => {
  it("reads as seconds, then minutes, then hours", async () => {
    const { formatElapsed } = await import("../src/calls/LiveCallCard");
    expect([7_000, 125_000, 3_725_000, -5].map(formatElapsed)).toEqual(["7 s", "2:05", "1:02:05", "0 s"]);
  });
});
