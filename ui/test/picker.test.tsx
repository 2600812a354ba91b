import { render, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it, vi } from "vitest";
import { groupTools } from "../src/tools/groupTools";
import { ToolPicker } from "../src/tools/ToolPicker";
import { tool, toolset } from "./fixtures";

const toolsets = [
  toolset({ id: "app-builder", name: "App Builder" }),
  toolset({ id: "csv-report", name: "CSV Report" }),
];
const tools = [
  tool({
    tool_id: "app-builder:run_command",
    toolset_id: "app-builder",
    name: "Run Command",
    description: "Run a shell command",
    requires_confirmation: true,
    render_config: { renderer: "code", config: {}, priority: 0 },
  }),
  tool({ tool_id: "app-builder:write_file", toolset_id: "app-builder", name: "Write File" }),
  tool({
    tool_id: "csv-report:summarize",
    toolset_id: "csv-report",
    name: "Summarize CSV",
    description: "Statistics of a CSV file",
    render_config: { renderer: "html", config: {}, priority: 0 },
  }),
  tool({
    tool_id: "delete_file",
    name: "Delete File",
    description: "Delete a workspace file",
    requires_confirmation: true,
  }),
  tool({ tool_id: "everything:echo", name: "echo", description: "Echoes the input", render_config: null }),
  tool({ tool_id: "write_file", name: "Write File" }),
];

describe("groupTools", () => {
  it("groups Builtin, then toolsets by name, then MCP servers", () => {
    const groups = groupTools(tools, toolsets, "");
    expect(groups.map((g) => [g.label, g.tools.map((t) => t.tool_id)])).toEqual([
      ["Builtin", ["delete_file", "write_file"]],
      ["App Builder", ["app-builder:run_command", "app-builder:write_file"]],
      ["CSV Report", ["csv-report:summarize"]],
      ["MCP · everything", ["everything:echo"]],
    ]);
  });

  it("searches name, id and description, every word", () => {
    const ids = (q: string) => groupTools(tools, toolsets, q).flatMap((g) => g.tools.map((t) => t.tool_id));
    expect(ids("write")).toEqual(["write_file", "app-builder:write_file"]);
    expect(ids("CSV statistics")).toEqual(["csv-report:summarize"]);
    expect(ids("everything:")).toEqual(["everything:echo"]);
    expect(ids("shell command")).toEqual(["app-builder:run_command"]);
    expect(ids("nothing-like-this")).toEqual([]);
  });
});

describe("ToolPicker", () => {
  it("shows groups with renderer and confirmation indicators, and filters", async () => {
    const onSelect = vi.fn();
    render(<ToolPicker tools={tools} toolsets={toolsets} selectedId={null} onSelect={onSelect} />);
    // Grouped by toolset, each group with its count.
    const groups = () => screen.getAllByRole("group").map((g) => g.getAttribute("aria-label"));
    expect(groups()).toEqual(["Builtin", "App Builder", "CSV Report", "MCP · everything"]);
    expect(screen.getByRole("group", { name: "App Builder" }).querySelector(".picker-group-title")).toHaveTextContent(
      "App Builder 2",
    );
    const csvGroup = screen.getByRole("group", { name: "CSV Report" });
    expect(within(csvGroup).getByText("html")).toBeInTheDocument();
    const builtin = screen.getByRole("group", { name: "Builtin" });
    const del = within(builtin).getByRole("option", { name: /Delete File/ });
    expect(within(del).getByText("asks first")).toBeInTheDocument();
    const write = within(builtin).getByRole("option", { name: /Write File/ });
    expect(within(write).queryByText("asks first")).toBeNull();
    expect(within(screen.getByRole("group", { name: "MCP · everything" })).getByText("json")).toBeInTheDocument();

    await userEvent.type(screen.getByRole("combobox", { name: "Search tools" }), "summarize");
    expect(groups()).toEqual(["CSV Report"]);
    await userEvent.click(screen.getByRole("option", { name: /Summarize CSV/ }));
    expect(onSelect).toHaveBeenCalledWith(tools[2]);

    await userEvent.clear(screen.getByRole("combobox"));
    await userEvent.type(screen.getByRole("combobox"), "zzz");
    expect(screen.getByText("Nothing matches “zzz”")).toBeInTheDocument();
    // No list to point at: the combobox says it is collapsed.
    expect(screen.getByRole("combobox")).toHaveAttribute("aria-expanded", "false");
    expect(screen.queryByRole("listbox")).toBeNull();
  });

  it("says how to get tools when there are none", () => {
    render(<ToolPicker tools={[]} toolsets={[]} selectedId={null} onSelect={vi.fn()} />);
    expect(screen.getByText("No tools available")).toBeInTheDocument();
    expect(screen.getByText(/Enable or import a toolset/)).toBeInTheDocument();
  });
});
