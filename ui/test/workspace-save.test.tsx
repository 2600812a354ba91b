import { render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it } from "vitest";
import type { WorkspaceManifest } from "../src/bindings";
import type { Chats } from "../src/chats/useChats";
import { chatsStub } from "./fixtures";
import { WorkspaceView } from "../src/workspace/WorkspaceView";
import { argsOf, deferred, mockCommands, type Handler } from "./ipc";

function chats(): Chats {
  return chatsStub();
}

const MANIFEST: WorkspaceManifest = {
  id: "man-7",
  chat_id: "chat-1",
  parent_id: "man-6",
  files: { "dist/app.wasm": "w", "notes.md": "n", "chart.png": "c" },
  executable: [],
  changes: {},
  created_at: "2026-11-23T06:00:00.000Z",
  source: "tool_run",
  source_ref: null,
  root_tree: "t",
  file_count: 3,
  total_size: 5000,
};

const FILES: Record<string, { size: number; text: string | null }> = {
  "dist/app.wasm": { size: 4096, text: null },
  "notes.md": { size: 6, text: "# Hi\n" },
};

function mock(exportFile: Handler<"export_workspace_file">) {
  return mockCommands({
    get_workspace_manifest: () => MANIFEST,
    get_workspace_file: (a) => ({ path: String(a.path), sha256: "x", ...FILES[String(a.path)]! }),
    workspace_file_url: () => "atelier-render://localhost/t/chart.png",
    export_workspace_file: exportFile,
  });
}

async function open(path: string) {
  render(<WorkspaceView chats={chats()} active />);
  const tree = await screen.findByRole("tree", { name: "Workspace files" });
  await userEvent.click(within(tree).getByTitle(path));
  return screen.findByRole("button", { name: "Save as…" });
}

describe("getting a file out", () => {
  it("shows a binary file's name and size, and saves it where the person picks", async () => {
    const picked = deferred<string | null>();
    const calls = mock(() => picked.promise);
    const save = await open("dist/app.wasm");
    const card = save.closest(".binary-file") as HTMLElement;
    expect(within(card).getByText("app.wasm")).toBeInTheDocument();
    expect(card).toHaveTextContent("4.0 KB (4,096 bytes)");
    await userEvent.click(save);
    // While the dialog is open the button waits.
    expect(screen.getByRole("button", { name: "Saving…" })).toBeDisabled();
    picked.resolve("/home/me/Downloads/app.wasm");
    expect(await screen.findByText("Saved to /home/me/Downloads/app.wasm.")).toBeInTheDocument();
    expect(argsOf(calls, "export_workspace_file")).toEqual([
      { chatId: "chat-1", manifestId: "man-7", path: "dist/app.wasm" },
    ]);
    expect(screen.getByRole("button", { name: "Save as…" })).toBeEnabled();
  });

  it("says nothing when the save dialog is cancelled", async () => {
    const calls = mock(() => null);
    const save = await open("dist/app.wasm");
    await userEvent.click(save);
    await waitFor(() => expect(argsOf(calls, "export_workspace_file")).toHaveLength(1));
    await waitFor(() => expect(screen.getByRole("button", { name: "Save as…" })).toBeEnabled());
    expect(screen.queryByText(/Saved to/)).toBeNull();
    expect(screen.queryByRole("alert")).toBeNull();
  });

  it("shows why a save failed", async () => {
    mock(() => {
      throw { kind: "io", message: "/mnt/usb: read-only file system" };
    });
    await userEvent.click(await open("dist/app.wasm"));
    const alert = await screen.findByRole("alert");
    expect(alert).toHaveTextContent("The file was not saved. /mnt/usb: read-only file system");
    await userEvent.click(within(alert).getByRole("button", { name: "Dismiss" }));
    expect(screen.queryByRole("alert")).toBeNull();
  });

  it("offers Save as… for text and image files too", async () => {
    const calls = mock((a) => `/home/me/${String(a.path)}`);
    await userEvent.click(await open("notes.md"));
    expect(await screen.findByText("Saved to /home/me/notes.md.")).toBeInTheDocument();

    await userEvent.click(within(screen.getByRole("tree", { name: "Workspace files" })).getByTitle("chart.png"));
    await screen.findByRole("img", { name: "chart.png" });
    await userEvent.click(screen.getByRole("button", { name: "Save as…" }));
    expect(await screen.findByText("Saved to /home/me/chart.png.")).toBeInTheDocument();
    expect(argsOf(calls, "export_workspace_file")).toEqual([
      { chatId: "chat-1", manifestId: "man-7", path: "notes.md" },
      { chatId: "chat-1", manifestId: "man-7", path: "chart.png" },
    ]);
  });
});
