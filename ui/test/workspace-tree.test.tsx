import { act, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it } from "vitest";
import type { WorkspaceManifest } from "../src/bindings";
import type { Chats } from "../src/chats/useChats";
import { chatsStub } from "./fixtures";
import { WorkspaceView } from "../src/workspace/WorkspaceView";
import { argsOf, mockCommands } from "./ipc";

function chats(revision = 0): Chats {
  return chatsStub({ revision });
}

function manifest(paths: string[], changes: Record<string, string | null> = {}, id = "man-1"): WorkspaceManifest {
  return {
    id,
    chat_id: "chat-1",
    parent_id: "man-0",
    files: Object.fromEntries(paths.map((p) => [p, `h-${p}`])),
    executable: [],
    changes,
    created_at: "2026-11-23T06:00:00.000Z",
    source: "tool_run",
    source_ref: null,
    root_tree: "t",
    file_count: paths.length,
    total_size: 1234,
  };
}

const PROJECT = ["top.txt", "src/app.py", "src/lib/util.py", "src/lib/more.py", "docs/readme.md"];

const rowTitles = (tree: HTMLElement) =>
  within(tree)
    .getAllByRole("treeitem")
    .map((r) => r.getAttribute("title"));
const row = (tree: HTMLElement, path: string) => within(tree).getByTitle(path);
const activeRow = (tree: HTMLElement) =>
  document.getElementById(tree.getAttribute("aria-activedescendant") ?? "")?.getAttribute("title");

async function showTree(m: WorkspaceManifest | (() => WorkspaceManifest), file = "print('hi')\n") {
  const calls = mockCommands({
    get_workspace_manifest: () => (typeof m === "function" ? m() : m),
    get_workspace_file: (a) => ({ path: String(a.path), size: file.length, sha256: "x", text: file }),
  });
  const view = render(<WorkspaceView chats={chats()} active />);
  const tree = await screen.findByRole("tree", { name: "Workspace files" });
  return { calls, view, tree };
}

describe("the workspace tree", () => {
  it("shows folders before files, how many files each folder holds, and what the last step changed", async () => {
    const { tree } = await showTree(manifest(PROJECT, { "src/lib/util.py": "h", "gone.txt": null }));
    expect(rowTitles(tree)).toEqual([
      "docs",
      "docs/readme.md",
      "src",
      "src/lib",
      "src/lib/more.py",
      "src/lib/util.py",
      "src/app.py",
      "top.txt",
    ]);
    expect(within(row(tree, "src")).getByTitle("3 files")).toHaveTextContent("3");
    expect(within(row(tree, "src/lib")).getByTitle("2 files")).toHaveTextContent("2");
    expect(within(row(tree, "docs")).getByTitle("1 file")).toHaveTextContent("1");
    // The changed file, and every folder above it; nothing else.
    expect(row(tree, "src/lib/util.py")).toHaveClass("file-item-changed");
    expect(row(tree, "src/lib/util.py")).toHaveTextContent("util.py (changed)");
    expect(row(tree, "src/lib")).toHaveClass("tree-folder-changed");
    expect(row(tree, "src")).toHaveClass("tree-folder-changed");
    for (const quiet of ["docs", "docs/readme.md", "src/app.py", "top.txt", "src/lib/more.py"]) {
      expect(row(tree, quiet)).not.toHaveClass("file-item-changed");
      expect(row(tree, quiet)).not.toHaveClass("tree-folder-changed");
    }
    // A removed file (null) is not in the tree.
    expect(within(tree).queryByTitle("gone.txt")).toBeNull();
    expect(row(tree, "src/app.py")).toHaveAttribute("data-path", "src/app.py");
  });

  it("collapses and expands a folder by clicking it", async () => {
    const { tree } = await showTree(manifest(PROJECT));
    await userEvent.click(row(tree, "src"));
    expect(row(tree, "src")).toHaveAttribute("aria-expanded", "false");
    expect(rowTitles(tree)).toEqual(["docs", "docs/readme.md", "src", "top.txt"]);
    await userEvent.click(row(tree, "src"));
    expect(row(tree, "src")).toHaveAttribute("aria-expanded", "true");
    // What was open inside stays open.
    expect(within(tree).getByTitle("src/lib/util.py")).toBeInTheDocument();
  });

  it("moves with the arrow keys, opens and closes folders with ←/→, opens a file with Enter", async () => {
    const { tree, calls, view } = await showTree(manifest(PROJECT));
    tree.focus();
    expect(activeRow(tree)).toBe("docs");
    await userEvent.keyboard("{ArrowDown}{ArrowDown}");
    expect(activeRow(tree)).toBe("src");
    expect(tree.querySelector(".tree-row-active")).toBe(row(tree, "src"));
    await userEvent.keyboard("{ArrowLeft}");
    expect(row(tree, "src")).toHaveAttribute("aria-expanded", "false");
    expect(within(tree).queryByTitle("src/app.py")).toBeNull();
    await userEvent.keyboard("{ArrowRight}");
    expect(row(tree, "src")).toHaveAttribute("aria-expanded", "true");
    await userEvent.keyboard("{ArrowRight}"); // an open folder: into its first child
    expect(activeRow(tree)).toBe("src/lib");
    await userEvent.keyboard("{ArrowDown}{ArrowDown}");
    expect(activeRow(tree)).toBe("src/lib/util.py");
    expect(argsOf(calls, "get_workspace_file")).toEqual([]); // moving opens nothing
    await userEvent.keyboard("{Enter}");
    await waitFor(() => expect(view.container.querySelector(".cm-content")?.textContent).toBe("print('hi')"));
    expect(argsOf(calls, "get_workspace_file")).toEqual([
      { chatId: "chat-1", path: "src/lib/util.py", manifestId: "man-1" },
    ]);
    expect(row(tree, "src/lib/util.py")).toHaveAttribute("aria-selected", "true");
    await userEvent.keyboard("{ArrowLeft}"); // a file: to its folder
    expect(activeRow(tree)).toBe("src/lib");
    await userEvent.keyboard("{End}");
    expect(activeRow(tree)).toBe("top.txt");
    await userEvent.keyboard("{Home}{ArrowUp}");
    expect(activeRow(tree)).toBe("docs");
  });

  it("keeps the shown file's folders open when the workspace is read again", async () => {
    // Above 300 files every folder starts closed.
    const many = Array.from({ length: 400 }, (_, i) => `bulk/f${i}.txt`);
    let m = manifest([...many, "src/deep/main.py"]);
    const { tree, view } = await showTree(() => m);
    expect(rowTitles(tree)).toEqual(["bulk", "src"]);
    await userEvent.click(row(tree, "src"));
    await userEvent.click(row(tree, "src/deep"));
    await userEvent.click(row(tree, "src/deep/main.py"));
    // The person closes the folders, then a run makes a new node.
    await userEvent.click(row(tree, "src"));
    expect(within(tree).queryByTitle("src/deep/main.py")).toBeNull();
    m = manifest([...many, "src/deep/main.py", "src/new.py"], { "src/new.py": "n" }, "man-2");
    view.rerender(<WorkspaceView chats={chats(1)} active />);
    await waitFor(() => expect(within(tree).getByTitle("src/new.py")).toBeInTheDocument());
    expect(row(tree, "src/deep/main.py")).toHaveAttribute("aria-selected", "true");
    expect(row(tree, "src/new.py")).toHaveClass("file-item-changed");
    expect(row(tree, "bulk")).toHaveAttribute("aria-expanded", "false");
  });
});

describe("a large workspace", () => {
  // 10,001 files in 200 folders (and two more deep in the last one).
  const paths: string[] = [];
  for (let d = 0; d < 200; d++) for (let f = 0; f < 50; f++) paths.push(`mod-${d}/file-${f}.txt`);
  paths.push("mod-199/deep/er/target.txt");
  const big = manifest(paths, { "mod-199/deep/er/target.txt": "t" });

  it("draws only the rows in view for 10,000 files and still reaches a deep one", async () => {
    const { tree, view } = await showTree(big, "found me\n");
    const drawn = () => within(tree).getAllByRole("treeitem").length;
    expect(drawn()).toBeLessThan(60);
    // Sorted as a person counts: mod-2 before mod-10.
    expect(rowTitles(tree).slice(0, 3)).toEqual(["mod-0", "mod-1", "mod-2"]);
    expect(within(row(tree, "mod-0")).getByTitle("50 files")).toBeInTheDocument();
    expect(within(tree).queryByTitle("mod-199")).toBeNull(); // far below: not drawn

    // Scroll to the end: the last folders are drawn, marked as changed inside.
    tree.scrollTop = 199 * 26;
    await act(async () => {
      fireEvent.scroll(tree);
    });
    expect(row(tree, "mod-199")).toHaveClass("tree-folder-changed");
    expect(within(row(tree, "mod-199")).getByTitle("51 files")).toBeInTheDocument();
    await userEvent.click(row(tree, "mod-199"));
    await userEvent.click(row(tree, "mod-199/deep"));
    await userEvent.click(row(tree, "mod-199/deep/er"));
    await userEvent.click(row(tree, "mod-199/deep/er/target.txt"));
    await waitFor(() => expect(view.container.querySelector(".cm-content")?.textContent).toBe("found me"));
    expect(drawn()).toBeLessThan(60);
  });

  it("reaches a deep file with the keyboard alone", async () => {
    const { tree, view } = await showTree(big, "found me\n");
    tree.focus();
    await userEvent.keyboard("{End}");
    expect(activeRow(tree)).toBe("mod-199");
    await userEvent.keyboard("{ArrowRight}{ArrowRight}{ArrowRight}{ArrowRight}{ArrowRight}{ArrowRight}");
    expect(activeRow(tree)).toBe("mod-199/deep/er/target.txt");
    await userEvent.keyboard("{Enter}");
    await waitFor(() => expect(view.container.querySelector(".cm-content")?.textContent).toBe("found me"));
    expect(within(tree).getAllByRole("treeitem").length).toBeLessThan(60);
  });
});
