// Settings → Agents: the list, an agent's form with the live preview of
// its tools, create (the id the core gives the name), edit, what a save
// warns of, delete (the Assistant's refusal in words), and per-tool
// confirmation policies.
import { act, render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it } from "vitest";
import type { Agent, AgentSpec, SavedAgent, ServerDetails, ToolsPreview, ToolsetRecord } from "../src/bindings";
import { AgentsSection } from "../src/settings/agents/AgentsSection";
import { patternsOf, specOf, draftOf } from "../src/settings/agents/agentForm";
import { agent } from "./fixtures";
import { argsOf, mockCommands } from "./ipc";

const ASSISTANT = agent({
  id: "assistant",
  name: "Assistant",
  description: "Works in the chat's files",
  tools: ["read_file", "write_file", "list_files", "delete_file"],
});
const ANALYST = agent({
  id: "analyst",
  name: "Analyst",
  model: { provider: "local", model: "qwen2.5:7b" },
  toolsets: ["csv-report"],
  max_steps: 8,
});

const TOOLSETS = [
  { id: "csv-report", name: "CSV Report", enabled: true },
  { id: "app-builder", name: "App Builder", enabled: false },
] as ToolsetRecord[];
const SERVERS = [
  { server: { id: "everything", enabled: true, tools: [{ name: "echo" }, { name: "add" }] } },
] as unknown as ServerDetails[];

/** What the core would answer for a spec: its patterns and toolsets, one tool each. */
function previewOf(spec: AgentSpec): ToolsPreview {
  const tools = [...spec.toolsets.map((t) => `${t}.run`), ...spec.tools.filter((p) => !p.startsWith("ghost"))];
  return {
    tools: tools.map((name) => ({
      model_name: name,
      canonical_id: name.includes(".") ? name.replace(".", ":") : name,
      source_kind: name.includes(".") ? "toolset" : "builtin",
      source_id: name.includes(".") ? name.split(".")[0]! : null,
      description: `Does ${name}`,
      requires_confirmation: name === "write_file",
      policy: name === "spawn_agents" ? null : "default",
    })),
    warnings: spec.tools
      .filter((p) => p.startsWith("ghost"))
      .map((p) => `"${p}" in the agent's tools matches no tool in the pool: skipped`),
    exposure: "openai",
    feature_loss: spec.toolsets.includes("everything") ? ["everything.run: format removed from path"] : [],
  };
}

/**
 * The core's id for a name, as far as these tests need it: ß is spelled
 * "ss" (a rule the UI must not know), nothing is left of "数据".
 */
function idOf(name: string): string | null {
  const id = name
    .toLowerCase()
    .replaceAll("ß", "ss")
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");
  return id === "" ? null : id;
}

/** What a save answers: the agent and the preview's words about its tools. */
function savedOf(made: Agent): SavedAgent {
  const { warnings, exposure, feature_loss } = previewOf(made);
  return { agent: made, warnings, exposure, feature_loss };
}

function backend(agents: Agent[] = [ASSISTANT, ANALYST]) {
  let list = [...agents];
  return mockCommands({
    list_agents: () => list,
    list_toolsets: () => TOOLSETS,
    list_mcp_servers: () => SERVERS,
    list_providers: () => [
      {
        id: "local",
        kind: "openai",
        preset: "ollama",
        base_url: "http://localhost:11434/v1",
        default_model: "qwen2.5:7b",
        headers: {},
        secret_headers: [],
        key_from: null,
        created_at: "",
        updated_at: "",
      },
    ],
    test_provider: () => ({
      provider_id: "local",
      ok: true,
      models: ["qwen2.5:7b", "llama3.2:3b"],
      error_kind: null,
      error: null,
    }),
    preview_agent_tools: (a) => previewOf(a.spec as AgentSpec),
    agent_id_from_name: (a) => idOf(String(a.name)),
    create_agent: (a) => {
      const spec = a.spec as AgentSpec;
      const id = spec.id === "" ? idOf(spec.name) : spec.id;
      if (id === null) {
        throw {
          kind: "invalid_data",
          message: `invalid agent: no id can be made from the name "${spec.name}" (ids take a-z, 0-9 and -): give the agent an id, e.g. analyst`,
        };
      }
      const made = agent({ ...spec, id });
      list = [...list, made];
      return savedOf(made);
    },
    update_agent: (a) => {
      const spec = a.spec as AgentSpec;
      const made = agent({ ...spec, id: spec.id });
      list = list.map((x) => (x.id === spec.id ? made : x));
      return savedOf(made);
    },
    delete_agent: (a) => {
      if (a.id === "assistant") {
        throw {
          kind: "conflict",
          message:
            "the Assistant answers in every chat that has no other agent: edit it (its tools, model, prompt), it cannot be deleted",
        };
      }
      list = list.filter((x) => x.id !== a.id);
      return null;
    },
    set_tool_policy: (a) => ({
      tool_id: String(a.toolId),
      policy: a.policy as "allow",
      requires_confirmation: false,
      asks: false,
    }),
  });
}

async function rows() {
  const list = await screen.findByRole("list", { name: "Agents" });
  return within(list).getAllByRole("listitem");
}

describe("Settings → Agents", () => {
  it("lists each agent with its model and what it may use", async () => {
    backend();
    render(<AgentsSection active />);
    const [assistant, analyst] = await rows();
    expect(assistant).toHaveTextContent("Assistant");
    expect(assistant).toHaveTextContent("the chat’s model · 4 tool patterns · up to 25 steps");
    expect(assistant).toHaveTextContent("Works in the chat's files");
    expect(analyst).toHaveTextContent("local · qwen2.5:7b · 1 toolset · up to 8 steps");
  });

  it("edits an agent: patterns resolve live to the tools the model sees, with the warnings, then Save", async () => {
    const calls = backend();
    render(<AgentsSection active />);
    const [assistant] = await rows();
    await userEvent.click(within(assistant!).getByRole("button", { name: "Edit Assistant" }));
    const form = screen.getByRole("form", { name: "Edit Assistant" });
    expect(within(form).getByLabelText("Id")).toHaveAttribute("readonly");
    const preview = within(form).getByRole("region", { name: "Tools this agent gets" });
    const tools = await within(preview).findByRole("list", { name: "Resolved tools" });
    expect(within(tools).getAllByRole("listitem")).toHaveLength(4);

    const patterns = within(form).getByLabelText("Tool patterns");
    await userEvent.clear(patterns);
    await userEvent.type(patterns, "read_file{Enter}ghost.*{Enter}read_file");
    await waitFor(() =>
      expect(
        within(within(preview).getByRole("list", { name: "Resolved tools" })).getAllByRole("listitem"),
      ).toHaveLength(1),
    );
    expect(within(preview).getByText("read_file")).toBeInTheDocument();
    expect(within(preview).getByRole("list", { name: "Warnings" })).toHaveTextContent(
      '"ghost.*" in the agent\'s tools matches no tool in the pool: skipped',
    );
    // Typing asks once the typing pauses, not per key.
    expect(argsOf(calls, "preview_agent_tools").length).toBeLessThan(6);

    await userEvent.clear(within(form).getByLabelText("System prompt"));
    await userEvent.type(within(form).getByLabelText("System prompt"), "Answer briefly.");
    await userEvent.click(within(form).getByRole("button", { name: "Save" }));
    // The form and its preview close; the save says what its rules match nothing with.
    const status = await screen.findByRole("status");
    expect(status).toHaveTextContent("Saved Assistant — 1 warning about its tools:");
    expect(within(status).getByRole("list", { name: "Warnings about Assistant" })).toHaveTextContent(
      '"ghost.*" in the agent\'s tools matches no tool in the pool: skipped',
    );
    expect(screen.getAllByText(/"ghost\.\*" in the agent's tools/)).toHaveLength(1);
    const [saved] = argsOf(calls, "update_agent");
    expect(saved!.spec).toMatchObject({
      id: "assistant",
      system_prompt: "Answer briefly.",
      tools: ["read_file", "ghost.*"],
      max_steps: 25,
    });
    expect(screen.queryByRole("form")).toBeNull();
  });

  it("creates an agent: its id is the core's for the name, toolsets and MCP servers are ticked, the model chosen", async () => {
    const calls = backend();
    render(<AgentsSection active />);
    await rows();
    await userEvent.click(screen.getByRole("button", { name: "New agent" }));
    const form = screen.getByRole("form", { name: "New agent" });
    await userEvent.type(within(form).getByLabelText("Name"), "Straße Analyst");
    await waitFor(() => expect(within(form).getByLabelText("Id")).toHaveValue("strasse-analyst"));

    // Toolsets (a disabled one says so) and MCP servers, each with all its tools.
    expect(within(form).getByRole("group", { name: "Toolsets" })).toHaveTextContent(
      "App Builder (app-builder) · disabled",
    );
    await userEvent.click(within(form).getByRole("checkbox", { name: /CSV Report/ }));
    await userEvent.click(within(form).getByRole("checkbox", { name: /everything/ }));
    const preview = within(form).getByRole("region", { name: "Tools this agent gets" });
    await waitFor(() =>
      expect(
        within(within(preview).getByRole("list", { name: "Resolved tools" })).getAllByRole("listitem"),
      ).toHaveLength(2),
    );
    expect(within(preview).getByText("1 change for the OpenAI-compatible protocol")).toBeInTheDocument();

    await userEvent.selectOptions(within(form).getByLabelText("Provider"), "local");
    const model = within(form).getByLabelText("Model");
    expect(model).toHaveAttribute("placeholder", "qwen2.5:7b");
    // The provider's own models are offered.
    await waitFor(() =>
      expect([...form.querySelectorAll("datalist option")].map((o) => o.getAttribute("value"))).toEqual([
        "qwen2.5:7b",
        "llama3.2:3b",
      ]),
    );
    await userEvent.type(model, "llama3.2:3b");
    await userEvent.clear(within(form).getByLabelText("Max steps"));
    await userEvent.type(within(form).getByLabelText("Max steps"), "0");
    expect(within(form).getByText("A whole number from 1.")).toBeInTheDocument();
    expect(within(form).getByRole("button", { name: "Create agent" })).toBeDisabled();
    await userEvent.type(within(form).getByLabelText("Max steps"), "5");

    await userEvent.click(within(form).getByRole("button", { name: "Create agent" }));
    const status = await screen.findByRole("status");
    expect(status).toHaveTextContent("Saved Straße Analyst.");
    // No warning, but what the protocol changes is still told, folded.
    expect(within(status).queryByRole("list", { name: /Warnings/ })).toBeNull();
    expect(within(status).getByText("1 change for the OpenAI-compatible protocol")).toBeInTheDocument();
    // The id followed the name: the core gives it on create.
    expect(argsOf(calls, "create_agent")[0]!.spec).toMatchObject({
      id: "",
      name: "Straße Analyst",
      model: { provider: "local", model: "llama3.2:3b" },
      toolsets: ["csv-report", "everything"],
      tools: [],
      max_steps: 5,
    });
    await waitFor(async () => expect(await rows()).toHaveLength(3));
    expect((await rows())[2]).toHaveTextContent("Straße Analyst strasse-analyst");
  });

  it("says when a name gives no id, and creates the agent under the id typed instead", async () => {
    const calls = backend();
    render(<AgentsSection active />);
    await rows();
    await userEvent.click(screen.getByRole("button", { name: "New agent" }));
    const form = screen.getByRole("form", { name: "New agent" });
    await userEvent.type(within(form).getByLabelText("Name"), "数据");
    const id = within(form).getByLabelText("Id");
    expect(await within(form).findByText("No id comes from this name: type one (a-z, 0-9 and -).")).toBeInTheDocument();
    expect(id).toHaveValue("");
    expect(id).toHaveAttribute("aria-invalid", "true");

    // Saved anyway: the core's refusal, in words.
    await userEvent.click(within(form).getByRole("button", { name: "Create agent" }));
    expect(await within(form).findByRole("alert")).toHaveTextContent("give the agent an id");

    await userEvent.type(id, "data");
    expect(within(form).getByText("What other agents call it by: a-z, 0-9 and -.")).toBeInTheDocument();
    await userEvent.click(within(form).getByRole("button", { name: "Create agent" }));
    expect(await screen.findByRole("status")).toHaveTextContent("Saved 数据.");
    expect(argsOf(calls, "create_agent").map((a) => (a.spec as AgentSpec).id)).toEqual(["", "data"]);
  });

  it("deletes an agent after asking; the Assistant has no Delete, and says why", async () => {
    const calls = backend();
    render(<AgentsSection active />);
    const [assistant, analyst] = await rows();
    await userEvent.click(within(analyst!).getByRole("button", { name: "Delete Analyst" }));
    const dialog = screen.getByRole("alertdialog", { name: "Delete Analyst?" });
    await userEvent.click(within(dialog).getByRole("button", { name: "Delete" }));
    await waitFor(async () => expect(await rows()).toHaveLength(1));
    expect(argsOf(calls, "delete_agent")).toEqual([{ id: "analyst" }]);

    // The core refuses to delete it (its chats would have nobody to answer):
    // no button offers what cannot be done, and its row says so.
    expect(within(assistant!).queryByRole("button", { name: /Delete/ })).toBeNull();
    expect(assistant).toHaveTextContent("Answers in every chat without another agent: it can be edited, not deleted.");
    expect(within(assistant!).getByRole("button", { name: "Edit Assistant" })).toBeInTheDocument();
  });

  it("sets a tool's confirmation policy from the preview, and names an allowed toolset that is not installed", async () => {
    const calls = backend([
      agent({ id: "old", name: "Old", toolsets: ["gone"], tools: ["write_file", "spawn_agents"] }),
    ]);
    render(<AgentsSection active />);
    const [old] = await rows();
    await userEvent.click(within(old!).getByRole("button", { name: "Edit Old" }));
    const form = screen.getByRole("form", { name: "Edit Old" });
    const missing = within(form).getByRole("group", { name: "Not here" });
    expect(within(missing).getByRole("checkbox", { name: /gone/ })).toBeChecked();
    expect(missing).toHaveTextContent("not installed");

    const choice = await within(form).findByRole("combobox", { name: "Confirmation of write_file" });
    expect(choice).toHaveDisplayValue("Ask first (its author's choice)");
    // The coordination tools never ask: no choice for them.
    expect(within(form).queryByRole("combobox", { name: "Confirmation of spawn_agents" })).toBeNull();
    expect(within(form).getByText("spawn_agents").closest("li")).toHaveTextContent("never asks");
    await userEvent.selectOptions(choice, "allow");
    await waitFor(() => expect(choice).toHaveDisplayValue("Never ask"));
    expect(argsOf(calls, "set_tool_policy")).toEqual([{ toolId: "write_file", policy: "allow" }]);
    await act(async () => undefined);
  });
});

describe("the agent form's words", () => {
  it("reads patterns and keeps what the form does not show", () => {
    expect(patternsOf("read_file\n\n csv-report.* , read_file,*")).toEqual(["read_file", "csv-report.*", "*"]);
    const base = agent({
      id: "x",
      filters: [{ category: "files" }],
      policies: ["no_confirmation_in_sub_agents"],
      max_depth: 3,
      model_settings: { temperature: 0.2 },
    });
    const spec = specOf({ ...draftOf(base), provider: "local", model: " " }, base);
    expect(spec).toMatchObject({
      model: null,
      filters: [{ category: "files" }],
      policies: ["no_confirmation_in_sub_agents"],
      max_depth: 3,
      model_settings: { temperature: 0.2 },
    });
  });
});
