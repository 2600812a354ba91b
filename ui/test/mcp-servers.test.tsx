import { act, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { emit } from "@tauri-apps/api/event";
import userEvent from "@testing-library/user-event";
import { describe, expect, it, vi } from "vitest";
import type { ImportCandidate, ServerDetails, ServerRecord } from "../src/bindings";
import { McpServersSection } from "../src/settings/mcp/McpServersSection";
import { shellLine, shellWords } from "../src/settings/mcp/shellWords";
import { mcpServer as record } from "./fixtures";
import { argsOf, deferred, mockCommands } from "./ipc";

function details(server: ServerRecord, over: Partial<ServerDetails> = {}): ServerDetails {
  return { server, status: "stopped", message: null, instances: [], stderr: [], ...over };
}

const ECHO = {
  name: "echo",
  title: null,
  description: "Echoes back the input",
  input_schema: { type: "object" },
  read_only: true,
  destructive: false,
};

const THREE: ServerDetails[] = [
  details(
    record({
      id: "everything",
      tools: [ECHO],
      server_name: "mcp-servers/everything",
      server_version: "2.0.0",
      env_keys: ["API_TOKEN"],
    }),
    {
      status: "connected",
      instances: [{ chat_id: null, status: "connected", pid: 4242 }],
      stderr: ["Starting default (STDIO) server...", "ready"],
    },
  ),
  details(
    record({
      id: "github",
      transport: "http",
      command: null,
      args: [],
      url: "https://api.example.invalid/mcp",
      header_keys: ["Authorization"],
      tools: null,
      last_error: 'MCP server "github": 401 Unauthorized: the token in its Authorization header was refused',
    }),
    { status: "error", message: 'MCP server "github": 401 Unauthorized' },
  ),
  details(record({ id: "git", user_declared: false, toolsets: ["git-tools"], enabled: false, active: false })),
];

describe("shell words", () => {
  it("splits a command line like a shell, without expansions", () => {
    expect(shellWords(`npx -y "@scope/server x" '$HOME' a\\ b ""`)).toEqual({
      words: ["npx", "-y", "@scope/server x", "$HOME", "a b", ""],
    });
    expect(shellWords(`say "unclosed`)).toEqual({ error: 'a " quote is not closed' });
    const words = ["node", "/my files/index.js", "it's", ""];
    expect(shellWords(shellLine(words))).toEqual({ words });
  });
});

describe("MCP servers in settings", () => {
  it("lists servers with their status in words, transport, tools and who declared them", async () => {
    mockCommands({ list_mcp_servers: () => THREE });
    render(<McpServersSection active onChanged={() => {}} />);
    const list = await screen.findByRole("list", { name: "MCP servers" });
    const row = (name: string) => within(list).getByRole("listitem", { name });
    expect(row("everything")).toHaveTextContent("connected");
    expect(row("everything")).toHaveTextContent("stdio · 1 tool");
    expect(row("github")).toHaveTextContent("error");
    expect(row("github")).toHaveTextContent("HTTP · not listed yet");
    expect(row("github")).toHaveTextContent("401 Unauthorized");
    expect(row("git")).toHaveTextContent("disabled");
    expect(row("git")).toHaveTextContent("declared by toolset git-tools");
    // A toolset's server goes with its toolset: no Remove; a disabled one cannot restart.
    expect(within(row("git")).queryByRole("button", { name: "Remove" })).toBeNull();
    expect(within(row("git")).getByRole("button", { name: "Restart" })).toBeDisabled();
    expect(within(row("git")).getByRole("switch", { name: "Enable git" })).not.toBeChecked();

    await userEvent.click(within(row("everything")).getByRole("button", { name: "Details" }));
    const r = row("everything");
    expect(r).toHaveTextContent("node /opt/everything/index.js stdio");
    expect(r).toHaveTextContent("API_TOKEN — set (in the secret store, not shown)");
    expect(r).toHaveTextContent("mcp-servers/everything 2.0.0");
    expect(r).toHaveTextContent("shared: connected, pid 4242");
    expect(within(r).getByRole("list", { name: "Tools of everything" })).toHaveTextContent(
      "echo" + "read-only" + "Echoes back the input",
    );
    expect(within(r).getByLabelText("stderr of everything")).toHaveTextContent("ready");
  });

  it("disables, restarts and (after a confirmation) removes a server", async () => {
    let servers = THREE;
    const calls = mockCommands({
      list_mcp_servers: () => servers,
      set_mcp_server_enabled: (a) => record({ id: String(a.id), enabled: a.enabled === true, active: false }),
      restart_mcp_server: (a) => {
        if (a.id === "github") {
          throw { kind: "mcp", message: 'MCP server "github" refused the connection: 401 Unauthorized' };
        }
        return record({ id: String(a.id) });
      },
      remove_mcp_server: (a) => {
        servers = servers.filter((d) => d.server.id !== a.id);
        return null;
      },
    });
    render(<McpServersSection active onChanged={() => {}} />);
    const list = await screen.findByRole("list", { name: "MCP servers" });
    const row = (name: string) => within(list).getByRole("listitem", { name });

    await userEvent.click(within(row("everything")).getByRole("switch", { name: "Enable everything" }));
    await waitFor(() =>
      expect(argsOf(calls, "set_mcp_server_enabled")).toEqual([{ id: "everything", enabled: false }]),
    );
    // Disabling connects nothing.
    expect(argsOf(calls, "restart_mcp_server")).toEqual([]);

    await userEvent.click(within(row("github")).getByRole("button", { name: "Restart" }));
    await waitFor(() => expect(argsOf(calls, "restart_mcp_server")).toEqual([{ id: "github" }]));
    expect(await within(row("github")).findByRole("alert")).toHaveTextContent(
      'MCP server "github" refused the connection: 401 Unauthorized',
    );

    await userEvent.click(within(row("everything")).getByRole("button", { name: "Remove" }));
    const dialog = screen.getByRole("alertdialog", { name: "Remove everything?" });
    expect(dialog).toHaveTextContent("deleted from the secret store");
    await userEvent.click(within(dialog).getByRole("button", { name: "Cancel" }));
    expect(argsOf(calls, "remove_mcp_server")).toEqual([]);
    await userEvent.click(within(row("everything")).getByRole("button", { name: "Remove" }));
    await userEvent.click(within(screen.getByRole("alertdialog")).getByRole("button", { name: "Remove" }));
    await waitFor(() => expect(argsOf(calls, "remove_mcp_server")).toEqual([{ id: "everything" }]));
    await waitFor(() => expect(within(list).queryByRole("listitem", { name: "everything" })).toBeNull());
  });

  it("signs in to a server that needs it: its page's address is shown while it waits, then it is listed", async () => {
    const url = "https://mcp.linear.invalid/mcp";
    const waiting = record({ id: "linear", transport: "http", command: null, args: [], url, tools: null });
    let servers = [
      details(
        { ...waiting, last_error: `MCP server linear at ${url} needs a sign-in (it answered 401 Unauthorized)` },
        { status: "needs sign-in", message: `MCP server linear at ${url} needs a sign-in` },
      ),
      // A stdio server never has Sign in.
      details(record({ id: "files" }), { status: "error", message: "MCP server files exited (code 1)" }),
    ];
    const signed = deferred<ServerRecord>();
    const calls = mockCommands({
      list_mcp_servers: () => servers,
      sign_in_mcp_server: () => signed.promise,
    });
    const changed = vi.fn();
    render(<McpServersSection active onChanged={changed} />);
    const list = await screen.findByRole("list", { name: "MCP servers" });
    const row = (name: string) => within(list).getByRole("listitem", { name });
    expect(row("linear")).toHaveTextContent("needs sign-in");
    expect(within(row("files")).queryByRole("button", { name: "Sign in" })).toBeNull();

    await userEvent.click(within(row("linear")).getByRole("button", { name: "Sign in" }));
    await waitFor(() => expect(argsOf(calls, "sign_in_mcp_server")).toEqual([{ id: "linear" }]));
    expect(within(row("linear")).getByRole("button", { name: "Waiting for the browser…" })).toBeDisabled();
    const page = "https://auth.linear.invalid/authorize?client_id=c1";
    await act(() => emit("mcp-sign-in-page", { id: "linear", url: page }));
    expect(row("linear")).toHaveTextContent(`If no browser opened, go to: ${page}`);

    const listed = record({ ...waiting, tools: [ECHO] });
    servers = [details(listed, { status: "connected" }), servers[1]!];
    await act(async () => signed.resolve(listed));
    await waitFor(() => expect(row("linear")).toHaveTextContent("connected"));
    expect(row("linear")).toHaveTextContent("HTTP · 1 tool");
    expect(within(row("linear")).queryByRole("button", { name: "Sign in" })).toBeNull();
    expect(row("linear")).not.toHaveTextContent("If no browser opened");
    expect(changed).toHaveBeenCalled();
  });

  it("a sign-in given up with Cancel ends without an error, and Sign in stays", async () => {
    const url = "https://mcp.example.invalid/mcp";
    const signed = deferred<ServerRecord>();
    const calls = mockCommands({
      list_mcp_servers: () => [
        details(record({ id: "remote", transport: "http", command: null, args: [], url, tools: null }), {
          status: "needs sign-in",
        }),
      ],
      sign_in_mcp_server: () => signed.promise,
      cancel_mcp_sign_in: () => {
        signed.reject({ kind: "mcp", message: "MCP server remote: the sign-in failed: cancelled" });
        return true;
      },
    });
    render(<McpServersSection active onChanged={() => {}} />);
    const row = await screen.findByRole("listitem", { name: "remote" });
    await userEvent.click(within(row).getByRole("button", { name: "Sign in" }));
    await userEvent.click(await within(row).findByRole("button", { name: "Cancel" }));
    expect(argsOf(calls, "cancel_mcp_sign_in")).toEqual([{ id: "remote" }]);
    expect(await within(row).findByRole("button", { name: "Sign in" })).toBeEnabled();
    expect(within(row).queryByRole("alert")).toBeNull();
    expect(within(row).queryByRole("button", { name: "Cancel" })).toBeNull();
  });

  it("a sign-in that fails says why on its row, and Sign in stays", async () => {
    const url = "https://mcp.example.invalid/mcp";
    mockCommands({
      list_mcp_servers: () => [
        details(record({ id: "remote", transport: "http", command: null, args: [], url, tools: null }), {
          status: "needs sign-in",
        }),
      ],
      sign_in_mcp_server: () => {
        throw {
          kind: "mcp",
          message: "MCP server remote: the sign-in failed: no answer from the browser within 300 s",
        };
      },
    });
    render(<McpServersSection active onChanged={() => {}} />);
    const row = await screen.findByRole("listitem", { name: "remote" });
    await userEvent.click(within(row).getByRole("button", { name: "Sign in" }));
    expect(await within(row).findByRole("alert")).toHaveTextContent("no answer from the browser within 300 s");
    expect(within(row).getByRole("button", { name: "Sign in" })).toBeEnabled();
  });

  it("enabling a server connects it once to list its tools, and the tool picker hears of it", async () => {
    const calls = mockCommands({
      list_mcp_servers: () => [details(record({ id: "files", enabled: false, active: false }))],
      set_mcp_server_enabled: (a) => record({ id: String(a.id), enabled: true, active: true }),
      restart_mcp_server: (a) => record({ id: String(a.id), tools: [ECHO] }),
    });
    const changed = vi.fn();
    render(<McpServersSection active onChanged={changed} />);
    await userEvent.click(await screen.findByRole("switch", { name: "Enable files" }));
    await waitFor(() => expect(argsOf(calls, "restart_mcp_server")).toEqual([{ id: "files" }]));
    expect(argsOf(calls, "set_mcp_server_enabled")).toEqual([{ id: "files", enabled: true }]);
    // The tool picker reads the tools on offer again.
    await waitFor(() => expect(changed).toHaveBeenCalled());
  });

  it("checks the add form, sends secrets as values of names, and shows a failed connection on the new row", async () => {
    let servers: ServerDetails[] = [];
    const calls = mockCommands({
      list_mcp_servers: () => servers,
      add_mcp_server: (a) => {
        const s = a.server as { id: string };
        if (s.id === "bad id")
          throw {
            kind: "invalid_data",
            message: 'invalid MCP server id: "bad id": use 1-64 letters, digits, `-` and `_`',
          };
        const r = record({ id: s.id, command: "uvx", args: ["my server"], env_keys: ["TOKEN"], tools: null });
        servers = [details(r)];
        return r;
      },
      restart_mcp_server: () => {
        const error = 'MCP server "mine" could not start: uvx: No such file or directory (os error 2)';
        servers = [details({ ...servers[0]!.server, last_error: error })];
        throw { kind: "mcp", message: error };
      },
    });
    render(<McpServersSection active onChanged={() => {}} />);
    await screen.findByText("No MCP server yet.");
    await userEvent.click(screen.getByRole("button", { name: "Add server" }));
    const form = screen.getByRole("form", { name: "Add an MCP server" });
    const submit = within(form).getByRole("button", { name: "Add and connect" });

    // Nothing is sent while the form says what is missing.
    await userEvent.click(submit);
    expect(within(form).getByLabelText("Name")).toHaveAccessibleDescription("Give the server a name.");
    expect(within(form).getByLabelText("Command line")).toHaveAccessibleDescription(
      "Say which command starts the server.",
    );
    fireEvent.change(within(form).getByLabelText("Command line"), { target: { value: `uvx "my server` } });
    await userEvent.click(within(form).getByRole("button", { name: "Add a variable" }));
    await userEvent.click(submit);
    expect(within(form).getByLabelText("Command line")).toHaveAccessibleDescription(
      'The command line cannot be split: a " quote is not closed.',
    );
    expect(form).toHaveTextContent("Every variable needs a name.");
    expect(argsOf(calls, "add_mcp_server")).toEqual([]);

    fireEvent.change(within(form).getByLabelText("Command line"), { target: { value: `uvx "my server"` } });
    expect(within(form).getByLabelText("How it will run")).toHaveTextContent("Runs uvx with 1 argument: my server");
    fireEvent.change(within(form).getByLabelText("Name of variable 1"), { target: { value: "TOKEN" } });
    const value = within(form).getByLabelText("Value of variable 1");
    expect(value).toHaveAttribute("type", "password");
    fireEvent.change(value, { target: { value: "s3cret" } });
    fireEvent.change(within(form).getByLabelText("Name"), { target: { value: "bad id" } });
    expect(within(form).getByRole("checkbox", { name: /Use in Assistant/ })).toBeChecked();

    // The core's refusal, in place.
    await userEvent.click(submit);
    expect(await within(form).findByRole("alert")).toHaveTextContent("Not added. invalid MCP server id");

    fireEvent.change(within(form).getByLabelText("Name"), { target: { value: "mine" } });
    await userEvent.click(submit);
    await waitFor(() => expect(argsOf(calls, "restart_mcp_server")).toEqual([{ id: "mine" }]));
    expect(argsOf(calls, "add_mcp_server")[1]).toEqual({
      server: { id: "mine", command: "uvx", args: ["my server"], url: null, env: { TOKEN: "s3cret" }, headers: {} },
      addToAssistant: true,
    });
    // The server stays, with why it did not connect on its row, and Restart.
    const row = await screen.findByRole("listitem", { name: "mine" });
    expect(await within(row).findByRole("alert")).toHaveTextContent("uvx: No such file or directory");
    expect(within(row).getByRole("button", { name: "Restart" })).toBeEnabled();
    expect(screen.getByText(/mine could not connect/)).toBeInTheDocument();
  });

  it("takes a call timeout in seconds, checked at its field, and the row says how long calls wait", async () => {
    let servers: ServerDetails[] = [details(record({ id: "quick" }))];
    const calls = mockCommands({
      list_mcp_servers: () => servers,
      add_mcp_server: (a) => {
        const s = a.server as { id: string; timeout_s?: number };
        const r = record({ id: s.id, command: "uvx", args: ["slow-server"], timeout_s: s.timeout_s });
        servers = [...servers, details(r, { status: "connected" })];
        return r;
      },
      restart_mcp_server: (a) => record({ id: String(a.id) }),
    });
    render(<McpServersSection active onChanged={() => {}} />);
    const list = await screen.findByRole("list", { name: "MCP servers" });
    // Without one, the app's default applies and nothing is said.
    expect(within(list).getByRole("listitem", { name: "quick" })).not.toHaveTextContent("calls wait");
    await userEvent.click(screen.getByRole("button", { name: "Add server" }));
    const form = screen.getByRole("form", { name: "Add an MCP server" });
    fireEvent.change(within(form).getByLabelText("Name"), { target: { value: "slow" } });
    fireEvent.change(within(form).getByLabelText("Command line"), { target: { value: "uvx slow-server" } });
    const timeout = within(form).getByRole("textbox", { name: "Call timeout" });
    expect(timeout).toHaveAttribute("placeholder", "60");
    const submit = within(form).getByRole("button", { name: "Add and connect" });
    for (const [typed, said] of [
      ["0", "The call timeout must be above 0 seconds."],
      ["-5", "The call timeout must be above 0 seconds."],
      ["90000", "The call timeout is at most 86400 seconds (a day)."],
      ["2 min", "Give the call timeout as a number of seconds, like 120."],
    ]) {
      fireEvent.change(timeout, { target: { value: typed } });
      await userEvent.click(submit);
      expect(timeout).toHaveAccessibleDescription(said);
      expect(timeout).toHaveAttribute("aria-invalid", "true");
    }
    expect(argsOf(calls, "add_mcp_server")).toEqual([]);

    fireEvent.change(timeout, { target: { value: " 300 " } });
    await userEvent.click(submit);
    await waitFor(() => expect(argsOf(calls, "add_mcp_server")).toHaveLength(1));
    expect((argsOf(calls, "add_mcp_server")[0] as { server: unknown }).server).toEqual({
      id: "slow",
      command: "uvx",
      args: ["slow-server"],
      url: null,
      env: {},
      headers: {},
      timeout_s: 300,
    });
    const row = await within(list).findByRole("listitem", { name: "slow" });
    expect(row).toHaveTextContent("stdio · 0 tools · calls wait up to 300 s for news");
  });

  it("adds a URL server with headers and without the Assistant", async () => {
    const calls = mockCommands({
      add_mcp_server: (a) => record({ id: (a.server as { id: string }).id, transport: "http" }),
      restart_mcp_server: (a) => record({ id: String(a.id), transport: "http" }),
    });
    render(<McpServersSection active onChanged={() => {}} />);
    await userEvent.click(await screen.findByRole("button", { name: "Add server" }));
    const form = screen.getByRole("form", { name: "Add an MCP server" });
    await userEvent.click(within(form).getByRole("radio", { name: /a server at a URL/ }));
    fireEvent.change(within(form).getByLabelText("Name"), { target: { value: "remote" } });
    fireEvent.change(within(form).getByLabelText("URL"), { target: { value: "https://example.invalid/mcp" } });
    await userEvent.click(within(form).getByRole("button", { name: "Add a header" }));
    fireEvent.change(within(form).getByLabelText("Name of header 1"), { target: { value: "Authorization" } });
    fireEvent.change(within(form).getByLabelText("Value of header 1"), { target: { value: "Bearer t" } });
    await userEvent.click(within(form).getByRole("checkbox", { name: /Use in Assistant/ }));
    await userEvent.click(within(form).getByRole("button", { name: "Add and connect" }));
    await waitFor(() => expect(argsOf(calls, "restart_mcp_server")).toEqual([{ id: "remote" }]));
    expect(argsOf(calls, "add_mcp_server")[0]).toEqual({
      server: {
        id: "remote",
        command: null,
        args: [],
        url: "https://example.invalid/mcp",
        env: {},
        headers: { Authorization: "Bearer t" },
      },
      addToAssistant: false,
    });
    expect(await screen.findByText("Added remote: connected, its tools listed.")).toBeInTheDocument();
  });

  it("previews a pasted config with what each server runs, then imports the chosen ones", async () => {
    const preview: ImportCandidate[] = [
      {
        id: "files",
        runs: "npx -y @modelcontextprotocol/server-filesystem /tmp",
        env_keys: [],
        header_keys: [],
        problem: null,
        note: null,
        timeout_s: null,
      },
      {
        id: "github",
        runs: "docker run ghcr.io/github/github-mcp-server",
        env_keys: ["GITHUB_TOKEN"],
        header_keys: [],
        problem: null,
        note: 'calls may wait 120 s for news (its "timeout")',
        timeout_s: 120,
      },
      {
        id: "off",
        runs: "uvx some-server",
        env_keys: [],
        header_keys: [],
        problem: null,
        note: "turned off in the config: added turned off",
        timeout_s: null,
      },
      {
        id: "old",
        runs: "https://example.invalid/sse",
        env_keys: [],
        header_keys: [],
        problem: "SSE servers are not supported: use streamable HTTP",
        note: null,
        timeout_s: null,
      },
    ];
    const calls = mockCommands({
      preview_mcp_config: (a) => {
        if (a.text === "{") throw { kind: "invalid_data", message: "invalid MCP config: not JSON: EOF while parsing" };
        return preview;
      },
      import_mcp_config: () => [record({ id: "github" }), record({ id: "off", enabled: false })],
      restart_mcp_server: (a) => record({ id: String(a.id) }),
    });
    render(<McpServersSection active onChanged={() => {}} />);
    await userEvent.click(await screen.findByRole("button", { name: "Import from config…" }));
    const panel = screen.getByRole("group", { name: "Import MCP servers from a config" });
    fireEvent.change(within(panel).getByLabelText("Config to import"), { target: { value: "{" } });
    await userEvent.click(within(panel).getByRole("button", { name: "Preview" }));
    expect(await within(panel).findByRole("alert")).toHaveTextContent("not JSON");

    const text = '{"mcpServers": {}}';
    fireEvent.change(within(panel).getByLabelText("Config to import"), { target: { value: text } });
    await userEvent.click(within(panel).getByRole("button", { name: "Preview" }));
    const listed = await within(panel).findByRole("list", { name: "Servers in the config" });
    expect(listed).toHaveTextContent("npx -y @modelcontextprotocol/server-filesystem /tmp");
    expect(listed).toHaveTextContent("GITHUB_TOKEN — a value is set");
    // A server's timeout is in its own row, not only in the note under it.
    const rowOf = (id: string) =>
      within(listed)
        .getByRole("checkbox", { name: `Import ${id}` })
        .closest("li");
    const github = rowOf("github");
    expect(github).not.toBeNull();
    expect(within(github as HTMLElement).getByText("call timeout").parentElement).toHaveTextContent(
      /^call timeout 120 s$/,
    );
    expect(rowOf("files")).not.toHaveTextContent("call timeout");
    expect(listed).toHaveTextContent("Cannot be added: SSE servers are not supported");
    expect(within(listed).getByRole("checkbox", { name: "Import old" })).toBeDisabled();
    expect(within(panel).getByRole("alert")).toHaveTextContent("Import only servers you trust");
    expect(listed).toHaveTextContent("turned off in the config: added turned off");
    await userEvent.click(within(listed).getByRole("checkbox", { name: "Import files" }));
    await userEvent.click(within(panel).getByRole("button", { name: "Import selected (2)" }));
    // The one the config turns off is added turned off, and not started.
    await waitFor(() => expect(argsOf(calls, "restart_mcp_server")).toEqual([{ id: "github" }]));
    expect(argsOf(calls, "import_mcp_config")).toEqual([{ text, only: ["github", "off"] }]);
    expect(
      await screen.findByText("Added github: connected, its tools listed. Added off turned off, as in the config."),
    ).toBeInTheDocument();
  });

  it("reads a config from a chosen file", async () => {
    const calls = mockCommands({ preview_mcp_config: () => [] });
    render(<McpServersSection active onChanged={() => {}} />);
    await userEvent.click(await screen.findByRole("button", { name: "Import from config…" }));
    const file = new File(['{"mcpServers": {}}'], "claude_desktop_config.json", { type: "application/json" });
    const input = screen.getByLabelText("Choose a file…");
    await act(async () => {
      await userEvent.upload(input, file);
    });
    await waitFor(() => expect(argsOf(calls, "preview_mcp_config")).toEqual([{ text: '{"mcpServers": {}}' }]));
    expect(await screen.findByText("The config names no servers.")).toBeInTheDocument();
  });
});
