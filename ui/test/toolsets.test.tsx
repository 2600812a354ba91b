import { act, render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it, vi } from "vitest";
import { ToolsetManager } from "../src/toolsets/ToolsetManager";
import { details, tool, toolset } from "./fixtures";
import { argsOf, mockCommands } from "./ipc";

const appBuilder = toolset();
const csv = toolset({ id: "csv-report", name: "CSV Report", version: "0.2.0", source_type: "local", enabled: false });
const example = toolset({ id: "demo", name: "Demo", source_type: "zip", source_ref: "bundled:demo" });

describe("toolset list", () => {
  it("lists installed toolsets with version, source and toggle state", async () => {
    mockCommands({ list_toolsets: () => [appBuilder, csv, example] });
    render(<ToolsetManager active onChanged={vi.fn()} />);
    const list = await screen.findByRole("list", { name: "Installed toolsets" });
    const rows = within(list).getAllByRole("listitem");
    expect(rows).toHaveLength(3);
    expect(within(rows[0]!).getByText("App Builder")).toBeInTheDocument();
    expect(within(rows[0]!).getByText("1.0.0")).toBeInTheDocument();
    expect(within(rows[0]!).getByText("ZIP")).toHaveAttribute("title", "/home/me/app-builder.zip");
    expect(within(rows[1]!).getByText("folder")).toBeInTheDocument();
    expect(within(rows[2]!).getByText("example")).toBeInTheDocument();
    expect(screen.getByRole("switch", { name: "Enable App Builder" })).toBeChecked();
    expect(screen.getByRole("switch", { name: "Enable CSV Report" })).not.toBeChecked();
  });

  it("toggles a toolset through enable_toolset and shows the new state", async () => {
    const onChanged = vi.fn();
    const calls = mockCommands({
      list_toolsets: () => [appBuilder],
      enable_toolset: (a) => ({ ...appBuilder, enabled: a.enabled as boolean }),
    });
    render(<ToolsetManager active onChanged={onChanged} />);
    const sw = await screen.findByRole("switch", { name: "Enable App Builder" });
    await userEvent.click(sw);
    await waitFor(() => expect(sw).not.toBeChecked());
    expect(argsOf(calls, "enable_toolset")).toEqual([{ id: "app-builder", enabled: false }]);
    expect(onChanged).toHaveBeenCalled();
    await userEvent.click(sw);
    await waitFor(() => expect(sw).toBeChecked());
  });

  it("shows a toggle failure on that row and keeps the state", async () => {
    mockCommands({
      list_toolsets: () => [appBuilder],
      enable_toolset: () => {
        throw { kind: "busy", message: "a call of app-builder is running" };
      },
    });
    render(<ToolsetManager active onChanged={vi.fn()} />);
    const sw = await screen.findByRole("switch", { name: "Enable App Builder" });
    await userEvent.click(sw);
    const row = screen.getByRole("listitem", { name: "App Builder" });
    expect(await within(row).findByRole("alert")).toHaveTextContent("a call of app-builder is running");
    expect(sw).toBeChecked();
  });

  it("lists a toolset's tools when expanded", async () => {
    const tools = [
      tool({ tool_id: "app-builder:write_file", toolset_id: "app-builder" }),
      tool({
        tool_id: "app-builder:run_command",
        toolset_id: "app-builder",
        name: "Run Command",
        requires_confirmation: true,
      }),
    ];
    mockCommands({ list_toolsets: () => [appBuilder], get_toolset: () => details(appBuilder, tools) });
    render(<ToolsetManager active onChanged={vi.fn()} />);
    await userEvent.click(await screen.findByRole("button", { name: "Details" }));
    const list = await screen.findByRole("list", { name: "Tools of App Builder" });
    expect(within(list).getByText("app-builder:run_command")).toBeInTheDocument();
    expect(within(list).getByText("asks first")).toBeInTheDocument();
  });

  it("says what to do when nothing is installed", async () => {
    mockCommands({ list_toolsets: () => [] });
    render(<ToolsetManager active onChanged={vi.fn()} />);
    expect(await screen.findByText("No toolsets installed yet")).toBeInTheDocument();
  });

  it("shows a load error with a retry", async () => {
    let fail = true;
    mockCommands({
      list_toolsets: () => {
        if (fail) throw { kind: "database", message: "database is locked" };
        return [appBuilder];
      },
    });
    render(<ToolsetManager active onChanged={vi.fn()} />);
    expect(await screen.findByRole("alert")).toHaveTextContent("database is locked");
    fail = false;
    await userEvent.click(screen.getByRole("button", { name: "Try again" }));
    expect(await screen.findByText("App Builder")).toBeInTheDocument();
  });

  it("says so when it runs outside the app (no backend)", async () => {
    render(<ToolsetManager active onChanged={vi.fn()} />);
    expect(await screen.findByRole("alert")).toHaveTextContent("this page works only inside the Atelier app");
  });

  it("uninstalls only after confirmation", async () => {
    const calls = mockCommands({ list_toolsets: () => [appBuilder, csv], uninstall_toolset: () => null });
    render(<ToolsetManager active onChanged={vi.fn()} />);
    const row = await screen.findByRole("listitem", { name: "App Builder" });
    await userEvent.click(within(row).getByRole("button", { name: "Uninstall" }));
    const dialog = screen.getByRole("alertdialog", { name: "Uninstall App Builder?" });
    await userEvent.click(within(dialog).getByRole("button", { name: "Cancel" }));
    expect(argsOf(calls, "uninstall_toolset")).toEqual([]);

    await userEvent.click(within(row).getByRole("button", { name: "Uninstall" }));
    await userEvent.click(within(screen.getByRole("alertdialog")).getByRole("button", { name: "Uninstall" }));
    await waitFor(() => expect(screen.queryByText("App Builder")).not.toBeInTheDocument());
    expect(argsOf(calls, "uninstall_toolset")).toEqual([{ id: "app-builder" }]);
    expect(screen.getByText("CSV Report")).toBeInTheDocument();
  });

  it("exports through the save dialog", async () => {
    const calls = mockCommands({
      list_toolsets: () => [appBuilder],
      pick_export_path: () => "/tmp/app-builder-1.0.0.zip",
      export_toolset: () => null,
    });
    render(<ToolsetManager active onChanged={vi.fn()} />);
    await userEvent.click(await screen.findByRole("button", { name: "Export" }));
    expect(await screen.findByText("Exported to /tmp/app-builder-1.0.0.zip")).toBeInTheDocument();
    expect(argsOf(calls, "pick_export_path")).toEqual([{ suggestedName: "app-builder-1.0.0.zip" }]);
    expect(argsOf(calls, "export_toolset")).toEqual([{ id: "app-builder", path: "/tmp/app-builder-1.0.0.zip" }]);
  });
});

describe("hot reload of local toolsets", () => {
  it("shows a refused edit on its row, and follows a good reload", async () => {
    const { emit } = await import("@tauri-apps/api/event");
    let version = "0.2.0";
    const calls = mockCommands({
      list_toolsets: () => [{ ...csv, version }],
      toolset_reloads: () => [
        { toolset_id: "csv-report", path: "/home/me/csv-report", version: null, error: "toolset.yaml:3:8: bad" },
      ],
    });
    const onChanged = vi.fn();
    render(<ToolsetManager active onChanged={onChanged} />);
    const row = await screen.findByRole("listitem", { name: "CSV Report" });
    const refused = await within(row).findByRole("alert", { name: "Last edit refused" });
    expect(refused).toHaveTextContent("Your last edit to /home/me/csv-report was not loaded; version 0.2.0 still runs");
    expect(refused).toHaveTextContent("toolset.yaml:3:8: bad");

    version = "0.3.0";
    await act(() =>
      emit("toolset-reloaded", {
        toolset_id: "csv-report",
        path: "/home/me/csv-report",
        version: "0.3.0",
        error: null,
      }),
    );
    await waitFor(() => expect(within(row).getByText("0.3.0")).toBeInTheDocument());
    expect(within(row).queryByRole("alert")).toBeNull();
    expect(argsOf(calls, "list_toolsets").length).toBeGreaterThan(1);
    expect(onChanged).toHaveBeenCalled();
  });
});
