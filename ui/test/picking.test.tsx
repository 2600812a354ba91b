// Picking a tool as a person at the keyboard does (#23): Ctrl+K search works
// like a command palette, the chosen tool's form comes into view with the
// cursor in its first field, and long names and ids keep their whole text in
// a tooltip.
import { render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { App } from "../src/App";
import { ToolPicker } from "../src/tools/ToolPicker";
import { call, chat, linearTree, tool } from "./fixtures";
import { mockCommands } from "./ipc";

const LONG_ID = "data-pipeline-toolkit:normalize_and_deduplicate_customer_records_across_all_regions_v2";
const tools = [
  tool({
    tool_id: "delete_file",
    name: "Delete File",
    description: "Delete a workspace file",
    input_schema: { type: "object", properties: {} },
  }),
  tool({
    tool_id: "write_file",
    name: "Write File",
    input_schema: {
      type: "object",
      properties: { path: { type: "string" }, content: { type: "string" } },
      required: ["path"],
    },
  }),
  tool({ tool_id: "everything:echo", name: "echo", description: "Echoes the input" }),
  tool({ tool_id: LONG_ID, name: "Normalize and deduplicate customer records of every region", description: "" }),
];

const item = (name: RegExp) => screen.getByRole("option", { name });

let scrolled: Element[] = [];
beforeEach(() => {
  scrolled = [];
  // jsdom has no layout: record what was brought into view.
  Element.prototype.scrollIntoView = vi.fn(function (this: Element) {
    scrolled.push(this);
  });
});
afterEach(() => {
  delete (Element.prototype as Partial<Element>).scrollIntoView;
});

describe("the tool search, like a command palette", () => {
  it("highlights the first result as one types; ↓/↑ move the highlight; Enter picks it", async () => {
    const onSelect = vi.fn();
    render(<ToolPicker tools={tools} toolsets={[]} selectedId={null} onSelect={onSelect} />);
    const search = screen.getByRole("combobox", { name: "Search tools" });
    await userEvent.type(search, "file");
    expect(search).toHaveAttribute("aria-activedescendant", item(/Delete File/).id);
    await userEvent.keyboard("{ArrowDown}");
    expect(search).toHaveAttribute("aria-activedescendant", item(/Write File/).id);
    expect(item(/Write File/)).toHaveClass("picker-item-highlight");
    // Said by a screen reader: the highlighted tool is the selected option
    // of the list the search controls, and the search keeps the focus.
    const list = screen.getByRole("listbox", { name: "Tools" });
    expect(search).toHaveAttribute("aria-expanded", "true");
    expect(search).toHaveAttribute("aria-controls", list.id);
    expect(list).toContainElement(item(/Write File/));
    expect(within(list).getAllByRole("option", { selected: true })).toEqual([item(/Write File/)]);
    expect(search).toHaveFocus();
    expect(scrolled).toContain(item(/Write File/));
    await userEvent.keyboard("{ArrowDown}{ArrowUp}{ArrowDown}");
    await userEvent.keyboard("{Enter}");
    expect(onSelect).toHaveBeenCalledWith(tools[1]);
    await userEvent.keyboard("{ArrowUp}{ArrowUp}{Enter}");
    expect(onSelect).toHaveBeenLastCalledWith(tools[0]);
  });

  it("picks the only result with Enter, and ↓ starts at the first tool when nothing is typed", async () => {
    const onSelect = vi.fn();
    render(<ToolPicker tools={tools} toolsets={[]} selectedId={null} onSelect={onSelect} />);
    const search = screen.getByRole("combobox", { name: "Search tools" });
    search.focus();
    await userEvent.keyboard("{Enter}");
    expect(onSelect).not.toHaveBeenCalled(); // nothing chosen yet
    await userEvent.keyboard("{ArrowDown}{Enter}");
    expect(onSelect).toHaveBeenLastCalledWith(tools[0]);
    await userEvent.clear(search);
    await userEvent.type(search, "echoes{Enter}");
    expect(onSelect).toHaveBeenLastCalledWith(tools[2]);
  });

  it("is one Tab stop: the tools are reached with the arrows, not with Tab", async () => {
    render(
      <>
        <ToolPicker tools={tools} toolsets={[]} selectedId="write_file" onSelect={vi.fn()} />
        <button type="button">After the list</button>
      </>,
    );
    const search = screen.getByRole("combobox", { name: "Search tools" });
    search.focus();
    await userEvent.tab();
    expect(screen.getByRole("button", { name: "After the list" })).toHaveFocus();
    // The open tool is marked as the current one.
    expect(item(/Write File/)).toHaveAttribute("aria-current", "true");
    expect(item(/Delete File/)).not.toHaveAttribute("aria-current");
  });

  it("keeps a long name and id whole in the item's tooltip", () => {
    render(<ToolPicker tools={tools} toolsets={[]} selectedId={null} onSelect={vi.fn()} />);
    const long = screen.getByRole("option", { name: /Normalize and deduplicate/ });
    expect(long.title).toContain(LONG_ID);
    expect(long.title).toContain("Normalize and deduplicate customer records of every region");
  });
});

describe("the chosen tool", () => {
  function app() {
    const c = chat();
    const calls = [call({ id: "c1", node_id: "n1", tool_id: LONG_ID })];
    mockCommands({
      list_chats: () => [c],
      list_toolsets: () => [],
      get_available_tools: () => tools,
      list_tool_calls: () => calls,
      chat_tree: () => linearTree(calls),
    });
    render(<App />);
  }

  it("opens with its form in view and the cursor in its first field, from Ctrl+K and Enter", async () => {
    app();
    // The tool list (in the hidden Tools tab) has loaded.
    await waitFor(() => expect(document.querySelector("#panel-tools .picker")).not.toBeNull());
    await userEvent.keyboard("{Control>}k{/Control}");
    const search = await screen.findByRole("combobox", { name: "Search tools" });
    await waitFor(() => expect(search).toHaveFocus());
    await userEvent.type(search, "write{Enter}");
    const form = await screen.findByRole("form", { name: "Run Write File" });
    await waitFor(() => expect(within(form).getByLabelText(/^path/)).toHaveFocus());
    expect(scrolled).toContain(form);
    // Typing goes into the field at once.
    await userEvent.keyboard("notes.txt");
    expect(within(form).getByLabelText(/^path/)).toHaveValue("notes.txt");
  });

  it("puts the cursor on Run when the tool takes no arguments, after a click too", async () => {
    app();
    await userEvent.click(screen.getByRole("tab", { name: "Chat" }));
    await userEvent.click(await screen.findByRole("option", { name: /Delete File/ }));
    const form = await screen.findByRole("form", { name: "Run Delete File" });
    await waitFor(() => expect(within(form).getByRole("button", { name: "Run" })).toHaveFocus());
  });

  it("× closes the form and gives the focus back to what opened it", async () => {
    app();
    await userEvent.click(screen.getByRole("tab", { name: "Chat" }));
    // Opened with a click on the tool: back on the tool.
    await userEvent.click(await screen.findByRole("option", { name: /Delete File/ }));
    await screen.findByRole("form", { name: "Run Delete File" });
    await userEvent.click(screen.getByRole("button", { name: "Close the tool form" }));
    expect(screen.queryByRole("form", { name: "Run Delete File" })).toBeNull();
    expect(item(/Delete File/)).toHaveFocus();
    // Opened from the search with Enter: back in the search, to pick another.
    const search = screen.getByRole("combobox", { name: "Search tools" });
    await userEvent.type(search, "write{Enter}");
    const form = await screen.findByRole("form", { name: "Run Write File" });
    await waitFor(() => expect(within(form).getByLabelText(/^path/)).toHaveFocus());
    screen.getByRole("button", { name: "Close the tool form" }).focus();
    await userEvent.keyboard("{Enter}");
    expect(screen.queryByRole("form", { name: "Run Write File" })).toBeNull();
    expect(search).toHaveFocus();
  });

  it("hides the list so the results get the whole width; Ctrl+K brings it back with the cursor in the search", async () => {
    app();
    await userEvent.click(screen.getByRole("tab", { name: "Chat" }));
    await userEvent.click(await screen.findByRole("button", { name: "Hide list" }));
    expect(screen.queryByRole("combobox", { name: "Search tools" })).toBeNull(); // hidden
    const show = screen.getByRole("button", { name: "☰ Tools" });
    expect(show).toHaveAttribute("aria-expanded", "false");
    await userEvent.click(show);
    expect(screen.getByRole("combobox", { name: "Search tools" })).toBeVisible();

    await userEvent.click(screen.getByRole("button", { name: "Hide list" }));
    await userEvent.keyboard("{Control>}k{/Control}");
    const search = await screen.findByRole("combobox", { name: "Search tools" });
    await waitFor(() => expect(search).toHaveFocus());
  });

  it("shows a long tool id cut on its call card, whole in the tooltip", async () => {
    app();
    await userEvent.click(screen.getByRole("tab", { name: "Chat" }));
    const card = await screen.findByRole("article", { name: `Call of ${LONG_ID}` });
    expect(card.querySelector(".call-tool")).toHaveAttribute("title", LONG_ID);
  });
});
