// Errors show next to what caused them, in words, with the action that fixes them.
import { render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it, vi } from "vitest";
import type { ToolRecord } from "../src/bindings";
import { ToolsView } from "../src/tools/ToolsView";
import { ToolsetManager } from "../src/toolsets/ToolsetManager";
import { WorkspaceView } from "../src/workspace/WorkspaceView";
import { clearManifests } from "../src/workspace/manifests";
import { call, chatsStub, linearTree, plan, tool, toolset } from "./fixtures";
import { argsOf, mockCommands } from "./ipc";

const writeFile = tool({
  tool_id: "app-builder:write_file",
  toolset_id: "app-builder",
  name: "Write File",
  input_schema: { type: "object", properties: { path: { type: "string" } } },
});
const earlier = call({
  id: "c1",
  node_id: "c1",
  tool_id: "app-builder:write_file",
  args: { path: "notes.md" },
  render_plan: plan("code", { content: "x" }),
});

describe("errors where they happen", () => {
  it("says on the card that a call's toolset is disabled, and Enable opens its form again", async () => {
    let enabled = false;
    const calls = mockCommands({
      list_toolsets: () => [toolset({ enabled })],
      get_available_tools: (): ToolRecord[] => (enabled ? [writeFile] : []),
      get_tool: () => ({ ...writeFile, enabled }),
      enable_toolset: (a) => {
        enabled = a.enabled === true;
        return toolset({ enabled });
      },
      list_tool_calls: () => [earlier],
      chat_tree: () => linearTree([earlier]),
    });
    render(<ToolsView chats={chatsStub()} toolsVersion={0} />);
    const card = await screen.findByRole("article", { name: "Call of app-builder:write_file" });
    await userEvent.click(within(card).getByRole("button", { name: "Run again…" }));
    const problem = await within(card).findByRole("alert");
    expect(problem).toHaveTextContent(
      "app-builder:write_file cannot run again while its toolset App Builder is disabled.",
    );
    await userEvent.click(within(problem).getByRole("button", { name: "Enable App Builder" }));
    expect(argsOf(calls, "enable_toolset")).toEqual([{ id: "app-builder", enabled: true }]);
    const form = await screen.findByRole("form", { name: "Run Write File" });
    expect(within(form).getByLabelText("path")).toHaveValue("notes.md");
    await waitFor(() => expect(within(card).queryByRole("alert")).toBeNull());
  });

  it("shows a toolset enabled elsewhere as enabled when the Toolsets tab comes back", async () => {
    let enabled = false;
    mockCommands({ list_toolsets: () => [toolset({ enabled })] });
    const { rerender } = render(<ToolsetManager active onChanged={vi.fn()} />);
    expect(await screen.findByRole("switch", { name: "Enable App Builder" })).not.toBeChecked();
    rerender(<ToolsetManager active={false} onChanged={vi.fn()} />);
    enabled = true; // a call card's Enable
    rerender(<ToolsetManager active onChanged={vi.fn()} />);
    await waitFor(() => expect(screen.getByRole("switch", { name: "Enable App Builder" })).toBeChecked());
  });

  it("says a removed tool's call cannot run again, on its card, with no fix to offer", async () => {
    mockCommands({
      list_toolsets: () => [],
      get_available_tools: () => [],
      get_tool: () => {
        throw { kind: "tool_not_found", message: "tool app-builder:write_file not found" };
      },
      list_tool_calls: () => [earlier],
      chat_tree: () => linearTree([earlier]),
    });
    render(<ToolsView chats={chatsStub()} toolsVersion={0} />);
    const card = await screen.findByRole("article", { name: "Call of app-builder:write_file" });
    await userEvent.click(within(card).getByRole("button", { name: "Run again…" }));
    const problem = await within(card).findByRole("alert");
    expect(problem).toHaveTextContent("is not available any more");
    expect(within(problem).queryByRole("button", { name: /Enable/ })).toBeNull();
  });

  it("does not say a bundle could not be read when it was read and refused as unsafe", async () => {
    mockCommands({
      list_toolsets: () => [],
      pick_bundle: () => "/home/me/big.zip",
      check_bundle: () => {
        throw {
          kind: "invalid_bundle",
          message: "/home/me/big.zip: 4.0 GiB uncompressed; a bundle may hold at most 512 MiB",
        };
      },
    });
    render(<ToolsetManager active onChanged={vi.fn()} />);
    await screen.findByText("No toolsets installed yet");
    await userEvent.click(screen.getByRole("button", { name: "Import…" }));
    const alert = await screen.findByRole("alert");
    expect(alert).toHaveTextContent("big.zip was read and refused: it breaks a safety rule for toolset bundles");
    expect(alert).toHaveTextContent("4.0 GiB uncompressed; a bundle may hold at most 512 MiB");
    expect(alert).not.toHaveTextContent("could not be read");
  });

  it("says Open folder failed to open the file manager, with the core's reason", async () => {
    clearManifests();
    mockCommands({
      get_workspace_manifest: () => {
        throw { kind: "io", message: "later" };
      },
      open_workspace_folder: () => {
        throw {
          kind: "io",
          message:
            "could not open /data/chats/c1/workspace: the folder is there, but xdg-open, which opens folders in the file manager, is not installed (it comes with xdg-utils); open the folder yourself",
        };
      },
    });
    render(<WorkspaceView chats={chatsStub()} active />);
    await userEvent.click(screen.getByRole("button", { name: "Open folder" }));
    const box = await screen.findByText("The folder did not open in the file manager.");
    expect(box.closest(".error-box")).toHaveTextContent(
      "xdg-open, which opens folders in the file manager, is not installed",
    );
  });
});
