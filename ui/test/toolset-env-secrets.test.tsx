// The values a toolset's MCP servers read (`${NAME}`) that its bundle does
// not bring, typed without a terminal: in the install screen (kept right
// after the install, before its servers start), in the result when a server
// did not start, and in the toolset's details (set / not set, Replace,
// Remove; one the bundle brought said so). A value is sent once and never
// shown again.
import { render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import axe from "axe-core";
import { describe, expect, it, vi } from "vitest";
import type { EnvReference } from "../src/bindings";
import { ToolsetManager } from "../src/toolsets/ToolsetManager";
import { bundle, consent, details, importReport, mcpServer, mcpTool, secretsStatus } from "./fixtures";
import { argsOf, mockCommands, type Handlers } from "./ipc";
import { csv, reviewZip } from "./toolsetReview";

const SECRET = "xoxb-typed-4242";

const ref = (name: string, over: Partial<EnvReference> = {}): EnvReference => ({
  name,
  server_ids: ["files"],
  in_environment: false,
  allowed: false,
  stored: false,
  // A stored value is the person's unless a test says the bundle brought it.
  origin: over.stored === true ? "person" : null,
  ...over,
});

// axe looks for icon fonts on a canvas, which jsdom has not.
HTMLCanvasElement.prototype.getContext = () => null;

/** axe's serious and critical violations in `root` (jsdom paints nothing: no contrast rule). */
async function violations(root: Element): Promise<string[]> {
  const result = await axe.run(root, { rules: { "color-contrast": { enabled: false } }, resultTypes: ["violations"] });
  return result.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .flatMap((v) => v.nodes.map((n) => `${v.id}: ${n.target.join(" ")} — ${v.help}`));
}

/** The commands in the order they were sent. */
const order = (calls: ReturnType<typeof mockCommands>) => calls.mock.calls.map(([c]) => c);

/** Every argument sent except to the setter: where a typed value must never go. */
const elsewhere = (calls: ReturnType<typeof mockCommands>) =>
  JSON.stringify(calls.mock.calls.filter(([c]) => c !== "set_toolset_env_secret"));

describe("a value its servers read, at install", () => {
  it("is typed in a password field and kept right after the install, before its server is listed", async () => {
    let stored = false;
    const { calls, panel } = await reviewZip({
      check_bundle: () => bundle({ consent: consent({ env_references: [ref("SLACK_TOKEN")] }) }),
      set_toolset_env_secret: () => {
        stored = true;
        return [ref("SLACK_TOKEN", { stored: true })];
      },
      list_mcp_server: () => {
        if (!stored) throw { kind: "secret_not_set", message: "${SLACK_TOKEN} has no value" };
        return mcpServer({ id: "files", tools: [mcpTool("post")] });
      },
    });
    const field = within(panel).getByLabelText("Value of SLACK_TOKEN");
    expect(field).toHaveAttribute("type", "password");
    expect(panel).toHaveTextContent("kept in your keychain for this toolset only");
    expect(await violations(panel)).toEqual([]);
    await userEvent.type(field, SECRET);
    await userEvent.click(within(panel).getByRole("button", { name: "Install" }));
    const done = await screen.findByRole("region", { name: "Installed" });
    await waitFor(() => expect(done).toHaveTextContent("MCP server files: 1 tool listed."));
    expect(argsOf(calls, "set_toolset_env_secret")).toEqual([{ id: "csv-report", name: "SLACK_TOKEN", value: SECRET }]);
    const sent = order(calls);
    expect(sent.indexOf("import_toolset")).toBeLessThan(sent.indexOf("set_toolset_env_secret"));
    expect(sent.indexOf("set_toolset_env_secret")).toBeLessThan(sent.indexOf("list_mcp_server"));
    expect(elsewhere(calls)).not.toContain(SECRET);
    expect(document.body.innerHTML).not.toContain(SECRET);
  });

  it("sends nothing for a name left empty or ticked to be read from the environment", async () => {
    const { calls, panel } = await reviewZip({
      check_bundle: () =>
        bundle({
          consent: consent({
            env_references: [ref("GITHUB_TOKEN", { in_environment: true }), ref("EMPTY")],
          }),
        }),
      list_mcp_server: () => mcpServer({ id: "files" }),
    });
    await userEvent.type(within(panel).getByLabelText("Value of GITHUB_TOKEN"), "typed-then-ticked");
    await userEvent.click(within(panel).getByRole("checkbox", { name: /GITHUB_TOKEN/ }));
    expect(within(panel).queryByLabelText("Value of GITHUB_TOKEN")).toBeNull();
    await userEvent.click(within(panel).getByRole("button", { name: "Install" }));
    await screen.findByRole("region", { name: "Installed" });
    expect(argsOf(calls, "set_toolset_env_secret")).toEqual([]);
    expect(JSON.stringify(calls.mock.calls)).not.toContain("typed-then-ticked");
  });

  it("offers the file only I can read when no keychain answers and a value is typed", async () => {
    const { panel } = await reviewZip({
      check_bundle: () => bundle({ consent: consent({ env_references: [ref("SLACK_TOKEN")], secret_store: null }) }),
      secrets_status: () => secretsStatus({ keychain: false, store: null, keychain_error: "no Secret Service" }),
    });
    expect(within(panel).queryByRole("button", { name: "Keep secrets in a file only I can read" })).toBeNull();
    await userEvent.type(within(panel).getByLabelText("Value of SLACK_TOKEN"), "x");
    expect(
      await within(panel).findByRole("button", { name: "Keep secrets in a file only I can read" }),
    ).toBeInTheDocument();
    // With nowhere to keep the typed value, the install would only refuse it afterwards.
    expect(within(panel).getByRole("button", { name: "Install" })).toBeDisabled();
    expect(panel).toHaveTextContent("Choose where to keep the values you typed (above) to install, or clear them.");
    await userEvent.clear(within(panel).getByLabelText("Value of SLACK_TOKEN"));
    expect(within(panel).getByRole("button", { name: "Install" })).toBeEnabled();
  });

  it("names the values it could not keep after the install and offers their fields again", async () => {
    const { calls } = await reviewZip({
      check_bundle: () => bundle({ consent: consent({ env_references: [ref("SLACK_TOKEN"), ref("REGION")] }) }),
      toolset_env_references: () => [ref("SLACK_TOKEN"), ref("REGION")],
      set_toolset_env_secret: () => {
        throw { kind: "secrets_unavailable", message: "the keychain is locked" };
      },
      list_mcp_server: () => {
        throw { kind: "secret_not_set", message: "${SLACK_TOKEN} has no value" };
      },
    });
    const panel = screen.getByRole("region", { name: "Review bundle" });
    await userEvent.type(within(panel).getByLabelText("Value of SLACK_TOKEN"), SECRET);
    await userEvent.type(within(panel).getByLabelText("Value of REGION"), "eu-1");
    await userEvent.click(within(panel).getByRole("button", { name: "Install" }));
    const done = await screen.findByRole("region", { name: "Installed" });
    expect(
      await within(done).findByText(/Installed, but \$SLACK_TOKEN, \$REGION could not be kept: type them again below/),
    ).toBeInTheDocument();
    expect(done).toHaveTextContent("the keychain is locked");
    expect(await within(done).findByLabelText("Value of SLACK_TOKEN")).toHaveValue("");
    expect(argsOf(calls, "set_toolset_env_secret")).toHaveLength(2);
    expect(document.body.textContent).not.toContain(SECRET);
  });

  it("when a server did not start for want of one, takes it in the result and starts that server again", async () => {
    let stored = false;
    const calls = mockCommands({
      list_toolsets: () => [],
      pick_bundle: () => "/home/me/csv-report.zip",
      check_bundle: () => bundle({ consent: consent({ env_references: [ref("SLACK_TOKEN")] }) }),
      import_toolset: () => importReport(csv),
      toolset_env_references: () => [ref("SLACK_TOKEN", { stored })],
      set_toolset_env_secret: () => {
        stored = true;
        return [ref("SLACK_TOKEN", { stored: true })];
      },
      list_mcp_server: () => {
        if (!stored) throw { kind: "mcp", message: '${SLACK_TOKEN} in env.TOKEN of MCP server "files" has no value' };
        return mcpServer({ id: "files", tools: [mcpTool("post"), mcpTool("read")] });
      },
    });
    render(<ToolsetManager active onChanged={vi.fn()} />);
    await userEvent.click(await screen.findByRole("button", { name: "Import…" }));
    await userEvent.click(await screen.findByRole("button", { name: "Install" }));
    const done = await screen.findByRole("region", { name: "Installed" });
    expect(await within(done).findByRole("heading", { name: "Installed, but its server didn't start" })).toBeVisible();
    const field = await within(done).findByLabelText("Value of SLACK_TOKEN");
    expect(field).toHaveAttribute("type", "password");
    await userEvent.type(field, SECRET);
    await userEvent.click(within(done).getByRole("button", { name: "Save SLACK_TOKEN" }));
    await waitFor(() => expect(done).toHaveTextContent("MCP server files: 2 tools listed."));
    expect(within(done).queryByRole("heading", { name: /didn't start/ })).toBeNull();
    expect(argsOf(calls, "set_toolset_env_secret")).toEqual([{ id: "csv-report", name: "SLACK_TOKEN", value: SECRET }]);
    expect(argsOf(calls, "list_mcp_server")).toEqual([{ id: "files" }, { id: "files" }]);
    // Kept: "set", and the value is gone from the page.
    expect(within(done).getByRole("button", { name: "Replace SLACK_TOKEN" })).toBeInTheDocument();
    expect(document.body.innerHTML).not.toContain(SECRET);
  });
});

describe("a value its servers read, in the toolset's details", () => {
  const open = async (refs: EnvReference[], handlers: Handlers = {}) => {
    const calls = mockCommands({
      list_toolsets: () => [csv],
      get_toolset: () => ({
        ...details(csv, []),
        mcp_servers: [{ toolset_id: "csv-report", server_id: "files", config: {}, auto_enabled: true }],
      }),
      toolset_env_references: () => refs,
      ...handlers,
    });
    render(<ToolsetManager active onChanged={vi.fn()} />);
    await userEvent.click(await screen.findByRole("button", { name: "Details" }));
    const section = await screen.findByRole("region", { name: "Values its servers read" });
    return { calls, section };
  };

  it("says set or not set, never a value; Replace and Remove for a stored one", async () => {
    const { calls, section } = await open([ref("SLACK_TOKEN", { stored: true }), ref("REGION")], {
      unset_toolset_env_secret: () => [ref("SLACK_TOKEN"), ref("REGION")],
    });
    const stored = within(section).getByText("set", { selector: ".badge" });
    expect(stored).toBeInTheDocument();
    expect(within(section).queryByLabelText("Value of SLACK_TOKEN")).toBeNull(); // no input until Replace
    expect(within(section).getByLabelText("Value of REGION")).toHaveAttribute("type", "password");
    expect(within(section).getByText("not set")).toBeInTheDocument();
    expect(await violations(section)).toEqual([]);

    await userEvent.click(within(section).getByRole("button", { name: "Replace SLACK_TOKEN" }));
    expect(within(section).getByLabelText("Value of SLACK_TOKEN")).toHaveAttribute("type", "password");
    await userEvent.click(within(section).getByRole("button", { name: "Keep the stored SLACK_TOKEN" }));
    // Removing asks first: the servers stop starting. A value the person
    // typed can be typed again: no word of a bundle.
    await userEvent.click(within(section).getByRole("button", { name: "Remove SLACK_TOKEN" }));
    const ask = await screen.findByRole("alertdialog", { name: "Remove $SLACK_TOKEN?" });
    expect(ask).toHaveTextContent("Its servers (server files) will not start until it is set again.");
    expect(ask).not.toHaveTextContent(/bundle|install/i);
    expect(section).not.toHaveTextContent("from the bundle");
    await userEvent.click(within(ask).getByRole("button", { name: "Cancel" }));
    expect(argsOf(calls, "unset_toolset_env_secret")).toEqual([]);
    await userEvent.click(within(section).getByRole("button", { name: "Remove SLACK_TOKEN" }));
    await userEvent.click(within(await screen.findByRole("alertdialog")).getByRole("button", { name: "Remove" }));
    await waitFor(() => expect(within(section).getAllByText("not set")).toHaveLength(2));
    expect(argsOf(calls, "unset_toolset_env_secret")).toEqual([{ id: "csv-report", name: "SLACK_TOKEN" }]);
  });

  it("says a value the bundle brought is from the bundle, and that only a reinstall brings it back", async () => {
    const { calls, section } = await open([ref("API_KEY", { stored: true, origin: "bundle" })], {
      set_toolset_env_secret: () => [ref("API_KEY", { stored: true })],
      list_mcp_server: () => mcpServer({ id: "files" }),
    });
    expect(within(section).getByText("set · from the bundle", { selector: ".badge" })).toBeInTheDocument();
    expect(await violations(section)).toEqual([]);
    await userEvent.click(within(section).getByRole("button", { name: "Remove API_KEY" }));
    const ask = await screen.findByRole("alertdialog", { name: "Remove $API_KEY?" });
    expect(ask).toHaveTextContent("Its servers (server files) will not start until it is set again.");
    expect(ask).toHaveTextContent(
      "This value came with the toolset’s bundle: once removed, only installing the toolset again brings it back.",
    );
    await userEvent.click(within(ask).getByRole("button", { name: "Cancel" }));
    expect(argsOf(calls, "unset_toolset_env_secret")).toEqual([]);

    // Still from the bundle while a replacement is typed; the person's once saved.
    await userEvent.click(within(section).getByRole("button", { name: "Replace API_KEY" }));
    expect(within(section).getByText("set · from the bundle", { selector: ".badge" })).toBeInTheDocument();
    await userEvent.type(within(section).getByLabelText("Value of API_KEY"), SECRET);
    await userEvent.click(within(section).getByRole("button", { name: "Save API_KEY" }));
    await waitFor(() => expect(within(section).getByText("set", { selector: ".badge" })).toBeInTheDocument());
    expect(section).not.toHaveTextContent("from the bundle");
    await userEvent.click(within(section).getByRole("button", { name: "Remove API_KEY" }));
    const again = await screen.findByRole("alertdialog", { name: "Remove $API_KEY?" });
    expect(again).not.toHaveTextContent(/bundle|install/i);
    expect(document.body.innerHTML).not.toContain(SECRET);
  });

  it("saves a typed value, empties the field and starts the server that reads it", async () => {
    const { calls, section } = await open([ref("REGION")], {
      set_toolset_env_secret: () => [ref("REGION", { stored: true })],
      list_mcp_server: () => mcpServer({ id: "files", tools: [mcpTool("forecast")] }),
    });
    await userEvent.type(within(section).getByLabelText("Value of REGION"), SECRET);
    await userEvent.click(within(section).getByRole("button", { name: "Save REGION" }));
    await waitFor(() => expect(section).toHaveTextContent("MCP server files: 1 tool listed."));
    expect(argsOf(calls, "set_toolset_env_secret")).toEqual([{ id: "csv-report", name: "REGION", value: SECRET }]);
    expect(argsOf(calls, "list_mcp_server")).toEqual([{ id: "files" }]);
    expect(within(section).getByRole("button", { name: "Replace REGION" })).toBeInTheDocument();
    expect(document.body.innerHTML).not.toContain(SECRET);
  });

  it("does not start a server the person turned off when a value it reads is saved", async () => {
    const { calls, section } = await open([ref("REGION", { server_ids: ["files", "off"] })], {
      set_toolset_env_secret: () => [ref("REGION", { server_ids: ["files", "off"], stored: true })],
      list_mcp_servers: () =>
        [mcpServer({ id: "files" }), mcpServer({ id: "off", enabled: false, active: false })].map((server) => ({
          server,
          status: "stopped",
          message: null,
          instances: [],
          stderr: [],
        })),
      list_mcp_server: () => mcpServer({ id: "files", tools: [mcpTool("forecast")] }),
    });
    await userEvent.type(within(section).getByLabelText("Value of REGION"), SECRET);
    await userEvent.click(within(section).getByRole("button", { name: "Save REGION" }));
    await waitFor(() => expect(section).toHaveTextContent("MCP server files: 1 tool listed."));
    expect(argsOf(calls, "list_mcp_server")).toEqual([{ id: "files" }]);
    expect(section).not.toHaveTextContent("MCP server off");
  });

  it("shows why a value was not kept, without the value, keeps it typed to try again, and starts nothing", async () => {
    const { calls, section } = await open([ref("REGION")], {
      set_toolset_env_secret: () => {
        throw { kind: "secrets_unavailable", message: "no keychain is reachable" };
      },
    });
    await userEvent.type(within(section).getByLabelText("Value of REGION"), SECRET);
    await userEvent.click(within(section).getByRole("button", { name: "Save REGION" }));
    expect(await within(section).findByText(/no keychain is reachable/)).toBeInTheDocument();
    expect(within(section).getByLabelText("Value of REGION")).toHaveValue(SECRET);
    expect(within(section).getByRole("button", { name: "Save REGION" })).toBeEnabled();
    expect(argsOf(calls, "list_mcp_server")).toEqual([]);
    // In the field only: no message or label repeats it.
    expect(document.body.textContent).not.toContain(SECRET);
  });
});
