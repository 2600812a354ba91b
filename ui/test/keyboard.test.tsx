// The keyboard contract of the app's dialogs and panels: the focus moves in
// when one opens, Tab and Shift+Tab stay inside a modal one, Escape closes
// it, and the focus goes back to the button that opened it — a person on
// the keyboard never lands on <body> and starts again from the top.
import { render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it, vi } from "vitest";
import { App } from "../src/App";
import { ChatSelector } from "../src/chats/ChatSelector";
import { useChats } from "../src/chats/useChats";
import { ToolsetManager } from "../src/toolsets/ToolsetManager";
import { chatBackend, message, openChat, text } from "./chatBackend";
import { chat, tool, toolset } from "./fixtures";
import { mockCommands } from "./ipc";

function Chats() {
  return <ChatSelector chats={useChats()} />;
}

describe("a modal dialog from the keyboard", () => {
  it("a confirmation: the safe choice has the focus, Tab goes round inside, Escape cancels and returns to the opener", async () => {
    mockCommands({ list_toolsets: () => [toolset({ id: "app-builder", name: "App Builder" })] });
    render(<ToolsetManager active onChanged={vi.fn()} />);
    const row = await screen.findByRole("listitem", { name: "App Builder" });
    const opener = within(row).getByRole("button", { name: "Uninstall" });
    opener.focus();
    await userEvent.keyboard("{Enter}");
    const dialog = screen.getByRole("alertdialog", { name: "Uninstall App Builder?" });
    const [cancel, del] = [
      within(dialog).getByRole("button", { name: "Cancel" }),
      within(dialog).getByRole("button", { name: "Uninstall" }),
    ];
    expect(cancel).toHaveFocus();
    await userEvent.tab();
    expect(del).toHaveFocus();
    await userEvent.tab();
    expect(cancel).toHaveFocus();
    await userEvent.tab({ shift: true });
    expect(del).toHaveFocus();
    await userEvent.keyboard("{Escape}");
    expect(screen.queryByRole("alertdialog")).toBeNull();
    expect(opener).toHaveFocus();
  });

  it("the shortcuts: Close has the focus, Tab stays on it, Escape closes and returns to the opener", async () => {
    mockCommands({
      list_chats: () => [],
      list_toolsets: () => [],
      get_available_tools: () => [tool()],
      get_settings: () => ({ saved: { frame_origins: [] }, frame_origins_in_effect: [] }),
    });
    render(<App />);
    const opener = screen.getByRole("button", { name: "Keyboard shortcuts" });
    await userEvent.click(opener);
    const dialog = screen.getByRole("dialog", { name: "Keyboard shortcuts" });
    const close = within(dialog).getByRole("button", { name: "Close" });
    expect(close).toHaveFocus();
    await userEvent.tab();
    expect(close).toHaveFocus();
    await userEvent.tab({ shift: true });
    expect(close).toHaveFocus();
    await userEvent.keyboard("{Escape}");
    expect(screen.queryByRole("dialog")).toBeNull();
    expect(opener).toHaveFocus();
  });
});

describe("a panel that opens in place", () => {
  it("a chat's model options: the first field has the focus, Escape closes and returns to the button", async () => {
    chatBackend({ messages: [message("u1", "m0", "user", [text("Hi")])] });
    await openChat();
    const button = await screen.findByRole("button", { name: "Model options" });
    await waitFor(() => expect(button).toBeEnabled());
    await userEvent.click(button);
    const panel = await screen.findByRole("form", { name: "This chat's model settings" });
    expect(within(panel).getByRole("textbox", { name: "Temperature" })).toHaveFocus();
    await userEvent.keyboard("{Escape}");
    await waitFor(() => expect(screen.queryByRole("form", { name: "This chat's model settings" })).toBeNull());
    expect(button).toHaveFocus();
  });

  it("the tool list: Hide list puts the focus on ☰ Tools, which brings the list back with the focus in its search", async () => {
    chatBackend({ messages: [message("u1", "m0", "user", [text("Hi")])] });
    await openChat();
    const show = await screen.findByRole("button", { name: "☰ Tools" });
    await userEvent.click(show);
    await waitFor(() => expect(screen.getByRole("combobox", { name: "Search tools" })).toHaveFocus());
    await userEvent.click(screen.getByRole("button", { name: "Hide list" }));
    await waitFor(() => expect(screen.getByRole("button", { name: "☰ Tools" })).toHaveFocus());
  });

  it("a deleted chat's Undo: Delete puts the focus on Undo, which gives it to the chat it brings back", async () => {
    mockCommands({ list_chats: () => [chat({ id: "c1", title: "Budget" }), chat({ id: "c2", title: "Notes" })] });
    render(<Chats />);
    const del = await screen.findByRole("button", { name: "Delete Budget" });
    del.focus();
    await userEvent.keyboard("{Enter}");
    expect(screen.getByRole("button", { name: "Undo deleting “Budget”" })).toHaveFocus();
    await userEvent.keyboard("{Enter}");
    expect(screen.getByRole("button", { name: "Budget" })).toHaveFocus();
  });
});

describe("the sections and the skip link", () => {
  const app = () => {
    mockCommands({
      list_chats: () => [],
      list_toolsets: () => [],
      get_available_tools: () => [tool()],
      get_settings: () => ({ saved: { frame_origins: [] }, frame_origins_in_effect: [] }),
    });
    render(<App />);
  };

  it("the first Tab reaches Skip to…, which puts the focus on the open section", async () => {
    app();
    await userEvent.tab();
    const skip = screen.getByRole("link", { name: "Skip to the chat" });
    expect(skip).toHaveFocus();
    await userEvent.keyboard("{Enter}");
    expect(screen.getByRole("main")).toHaveFocus();
  });

  it("the section tabs are one Tab stop; ↓ ↑ Home End choose a section", async () => {
    app();
    const tab = (name: string) => screen.getByRole("tab", { name });
    const chat = tab("Chat");
    expect(screen.getAllByRole("tab").filter((t) => t.tabIndex === 0)).toEqual([chat]);
    chat.focus();
    await userEvent.keyboard("{ArrowDown}");
    expect(tab("Workspace")).toHaveFocus();
    expect(tab("Workspace")).toHaveAttribute("aria-selected", "true");
    expect(screen.getByRole("tabpanel", { name: "Workspace" })).toBeVisible();
    await userEvent.keyboard("{ArrowDown}{ArrowDown}");
    // Round the end, to the first.
    expect(tab("Toolsets")).toHaveFocus();
    await userEvent.keyboard("{End}");
    expect(tab("Settings")).toHaveAttribute("aria-selected", "true");
    await userEvent.keyboard("{ArrowUp}{Home}");
    expect(tab("Toolsets")).toHaveAttribute("aria-selected", "true");
    expect(screen.getAllByRole("tab").filter((t) => t.tabIndex === 0)).toEqual([tab("Toolsets")]);
  });
});
