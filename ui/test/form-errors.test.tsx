// A form says what is wrong where it is wrong, in words, and the form, the
// Raw JSON tab and what is sent always agree.
import { fireEvent, render, screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it, vi } from "vitest";
import type { ArgProblem, JsonValue } from "../src/bindings";
import { RunsProvider } from "../src/calls/runs";
import { isObject } from "../src/lib/json";
import { ToolRunner } from "../src/tools/ToolRunner";
import { call, tool } from "./fixtures";
import { argsOf, mockCommands, type Args } from "./ipc";

const schema: JsonValue = {
  type: "object",
  properties: {
    path: { type: "string" },
    count: { type: "integer", maximum: 4 },
    email: { type: "string", pattern: "^[^@]+@[^@]+$", description: "name@host" },
    encoding: { type: "string", default: "utf-8" },
    make_dirs: { type: "boolean", default: true, description: "Create missing folders" },
  },
  required: ["path"],
};
const formTool = tool({ tool_id: "demo:send", name: "Send", input_schema: schema });

/** What the core says of these arguments (its words, as validate_tool_args gives them). */
function check(a: Args): ArgProblem[] {
  const args = isObject(a.args as JsonValue) ? (a.args as Record<string, JsonValue>) : {};
  const out: ArgProblem[] = [];
  if (typeof args.path !== "string") out.push({ field: ["path"], message: "Required" });
  if (typeof args.count === "string") out.push({ field: ["count"], message: "Must be a whole number" });
  if (typeof args.count === "number" && args.count > 4) out.push({ field: ["count"], message: "Must be at most 4" });
  if (typeof args.email === "string" && !/^[^@]+@[^@]+$/.test(args.email))
    out.push({ field: ["email"], message: "Must look like name@host" });
  if ("extra" in args) out.push({ field: ["extra"], message: "Not an argument of this tool" });
  return out;
}

function setup() {
  const onCall = vi.fn();
  const calls = mockCommands({ validate_tool_args: check, run_tool: () => call({ tool_id: "demo:send" }) });
  render(
    <RunsProvider>
      <ToolRunner tool={formTool} chatId="chat-1" ensureChat={() => Promise.resolve("chat-1")} onCall={onCall} />
    </RunsProvider>,
  );
  return { calls, onCall };
}

const field = (name: RegExp | string) => screen.getByLabelText(name);
const raw = () => screen.getByRole("textbox", { name: "Arguments as JSON" }) as HTMLTextAreaElement;
const runArgs = (calls: ReturnType<typeof mockCommands>) => argsOf(calls, "run_tool").map((a) => a.args);

describe("form errors", () => {
  it("puts each problem under its field in words, focuses the first, and clears each as it is fixed", async () => {
    const { calls, onCall } = setup();
    await userEvent.type(field("count"), "9");
    await userEvent.type(field("email"), "not-an-email");
    await userEvent.click(screen.getByRole("button", { name: "Run" }));

    await waitFor(() => expect(field(/^path/)).toHaveAccessibleDescription("Required"));
    expect(field(/^path/)).toHaveAttribute("aria-invalid", "true");
    expect(field(/^path/)).toHaveFocus();
    expect(field("count")).toHaveAccessibleDescription("Must be at most 4");
    expect(field("email")).toHaveAccessibleDescription("Must look like name@host");
    expect(screen.getByRole("alert")).toHaveTextContent("3 arguments need fixing (marked above)");
    // No raw validator text anywhere.
    expect(document.body).not.toHaveTextContent(/is a required property|does not match/);
    expect(onCall).not.toHaveBeenCalled();

    await userEvent.type(field(/^path/), "out.txt");
    expect(field(/^path/)).not.toHaveAttribute("aria-invalid");
    expect(field("count")).toHaveAccessibleDescription("Must be at most 4");
    await userEvent.clear(field("count"));
    await userEvent.type(field("count"), "3");
    await userEvent.clear(field("email"));
    await userEvent.type(field("email"), "me@example.com");
    await waitFor(() => expect(screen.queryByRole("alert")).toBeNull());
    expect(field("count")).not.toHaveAttribute("aria-invalid");
    expect(field("email")).not.toHaveAttribute("aria-invalid");

    await userEvent.click(screen.getByRole("button", { name: "Run" }));
    await waitFor(() => expect(onCall).toHaveBeenCalledTimes(1));
    expect(runArgs(calls)).toEqual([
      { path: "out.txt", count: 3, email: "me@example.com", encoding: "utf-8", make_dirs: true },
    ]);
  });

  it("says that text in a number field is not a number, and never drops it", async () => {
    const { calls } = setup();
    await userEvent.type(field(/^path/), "a.txt");
    await userEvent.type(field("count"), "abc");
    expect(field("count")).toHaveValue("abc");
    expect(field("count")).toHaveAccessibleDescription('"abc" is not a number');
    await userEvent.click(screen.getByRole("tab", { name: "Raw JSON" }));
    expect(JSON.parse(raw().value)).toMatchObject({ count: "abc" });
    await userEvent.click(screen.getByRole("tab", { name: "Form" }));
    expect(field("count")).toHaveValue("abc");
    await userEvent.click(screen.getByRole("button", { name: "Run" }));
    await waitFor(() => expect(argsOf(calls, "validate_tool_args")).toHaveLength(1));
    expect(argsOf(calls, "validate_tool_args")[0]!.args).toMatchObject({ count: "abc" });
    expect(argsOf(calls, "run_tool")).toEqual([]);
    expect(field("count")).toHaveFocus();
    // Something else from the Raw JSON tab is shown as it is, and said.
    await userEvent.click(screen.getByRole("tab", { name: "Raw JSON" }));
    fireEvent.change(raw(), { target: { value: '{"path": "a.txt", "count": {"n": 1}}' } });
    await userEvent.click(screen.getByRole("tab", { name: "Form" }));
    expect(field("count")).toHaveValue('{"n":1}');
    expect(field("count")).toHaveAccessibleDescription('{"n":1} is not a number');
    // A decimal point on the way to 2.5 stays as typed.
    await userEvent.clear(field("count"));
    await userEvent.type(field("count"), "2.");
    expect(field("count")).toHaveValue("2.");
  });

  it("shows a checkbox as what is sent after a Raw JSON round trip", async () => {
    const { calls, onCall } = setup();
    expect(field("make_dirs")).toBeChecked();
    await userEvent.click(screen.getByRole("tab", { name: "Raw JSON" }));
    fireEvent.change(raw(), { target: { value: '{"path": "a.txt"}' } });
    await userEvent.click(screen.getByRole("tab", { name: "Form" }));
    // Left out: the tool uses its default (on), and the box says so.
    expect(field("make_dirs")).toBeChecked();
    expect(screen.getByText("(the default)")).toBeInTheDocument();
    await userEvent.click(screen.getByRole("button", { name: "Run" }));
    await waitFor(() => expect(onCall).toHaveBeenCalledTimes(1));
    expect(runArgs(calls)).toEqual([{ path: "a.txt" }]);

    await userEvent.click(field("make_dirs"));
    expect(field("make_dirs")).not.toBeChecked();
    await userEvent.click(screen.getByRole("tab", { name: "Raw JSON" }));
    expect(JSON.parse(raw().value)).toEqual({ path: "a.txt", make_dirs: false });
    fireEvent.change(raw(), { target: { value: '{"path": "a.txt", "make_dirs": "yes"}' } });
    await userEvent.click(screen.getByRole("tab", { name: "Form" }));
    expect(field("make_dirs")).toHaveAccessibleDescription(/"yes" is not true or false/);
  });

  it("says plainly which default an empty field gets", async () => {
    setup();
    expect(field("encoding")).toHaveValue("utf-8");
    expect(screen.queryByText(/the tool uses its default/)).toBeNull();
    await userEvent.clear(field("encoding"));
    expect(field("encoding")).toHaveAttribute("placeholder", "utf-8 (the default)");
    expect(screen.getByText("Left empty: the tool uses its default, “utf-8”.")).toBeInTheDocument();
  });

  it("lists a problem no field shows, in words, under the Raw JSON text", async () => {
    setup();
    await userEvent.click(screen.getByRole("tab", { name: "Raw JSON" }));
    fireEvent.change(raw(), { target: { value: '{"path": "a.txt", "extra": 1}' } });
    await userEvent.click(screen.getByRole("button", { name: "Run" }));
    expect(await screen.findByRole("list", { name: "Argument problems" })).toHaveTextContent(
      "extra: Not an argument of this tool",
    );
    expect(raw()).toHaveFocus();
  });
});
