import { render, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it } from "vitest";
import type { Chat } from "../src/bindings";
import { ChatSelector } from "../src/chats/ChatSelector";
import { useChats } from "../src/chats/useChats";
import { chat } from "./fixtures";
import { argsOf, mockCommands } from "./ipc";

function Harness() {
  return <ChatSelector chats={useChats()} />;
}

const four: Chat[] = [
  chat({ id: "c1", title: "CSV cleanup", updated_at: "2026-11-20T10:00:00.000Z" }),
  chat({ id: "c2", title: "Landing page", updated_at: "2026-11-21T10:00:00.000Z" }),
  chat({ id: "c3", title: "Budget sheet", updated_at: "2026-11-22T10:00:00.000Z" }),
  chat({ id: "c4", title: "CSV import", updated_at: "2026-11-19T10:00:00.000Z" }),
];

describe("chat list", () => {
  it("lists chats newest first, searches titles, and selects one", async () => {
    mockCommands({ list_chats: () => four });
    render(<Harness />);
    const list = await screen.findByRole("list", { name: "Chat list" });
    expect(
      within(list)
        .getAllByRole("button", { name: /^(?!Rename|Delete)/ })
        .map((b) => b.textContent),
    ).toEqual(["Budget sheet", "Landing page", "CSV cleanup", "CSV import"]);
    expect(within(list).getByRole("button", { name: "Budget sheet" })).toHaveAttribute("aria-current", "true");
    await userEvent.type(screen.getByRole("searchbox", { name: "Search chats" }), "csv");
    expect(
      within(list)
        .getAllByRole("listitem")
        .map((li) => li.querySelector(".chat-title")?.textContent),
    ).toEqual(["CSV cleanup", "CSV import"]);
    await userEvent.click(within(list).getByRole("button", { name: "CSV import" }));
    expect(within(list).getByRole("button", { name: "CSV import" })).toHaveAttribute("aria-current", "true");
    await userEvent.type(screen.getByRole("searchbox", { name: "Search chats" }), "zzz");
    expect(within(list).getByText(/No chat matches/)).toBeInTheDocument();
  });

  it("renames the current chat in place and deletes it, with Undo offered before it is deleted for good", async () => {
    let chats = four.slice(0, 2);
    const calls = mockCommands({
      list_chats: () => chats,
      rename_chat: (a) => ({ ...chats.find((c) => c.id === a.chatId)!, title: a.title as string }),
      delete_chat: (a) => {
        chats = chats.filter((c) => c.id !== a.chatId);
        return null;
      },
    });
    render(<Harness />);
    await userEvent.click(await screen.findByRole("button", { name: "Rename Landing page" }));
    const input = screen.getByRole("textbox", { name: "Chat title" });
    await userEvent.clear(input);
    await userEvent.type(input, "Landing page v2{Enter}");
    expect(await screen.findByRole("button", { name: "Landing page v2" })).toBeInTheDocument();
    expect(argsOf(calls, "rename_chat")).toEqual([{ chatId: "c2", title: "Landing page v2" }]);

    // No question first: the chat goes at once, and Undo can bring it back
    // (chat-delete.test.tsx follows it to its deletion for good).
    await userEvent.click(screen.getByRole("button", { name: "Delete Landing page v2" }));
    expect(screen.queryByRole("alertdialog")).toBeNull();
    expect(screen.queryByRole("button", { name: "Landing page v2" })).toBeNull();
    expect(screen.getByRole("button", { name: "CSV cleanup" })).toHaveAttribute("aria-current", "true");
    expect(screen.getByRole("status")).toHaveTextContent("Deleted “Landing page v2”");
    expect(screen.getByRole("button", { name: "Undo deleting “Landing page v2”" })).toBeInTheDocument();
    expect(argsOf(calls, "delete_chat")).toEqual([]);
  });
});
