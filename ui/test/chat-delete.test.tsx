// Deleting a chat: it leaves the list at once, "Deleted “…”" offers Undo
// for UNDO_MS, and only then is it deleted for good — or at once when
// another chat is deleted, or when the window goes; a note left by a
// window closed meanwhile has it deleted at the next start.
import { act, render, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { Chat } from "../src/bindings";
import { ChatSelector } from "../src/chats/ChatSelector";
import { DELETING_KEY, UNDO_MS } from "../src/chats/deletion";
import { useChats } from "../src/chats/useChats";
import { chat } from "./fixtures";
import { argsOf, mockCommands, type Handler } from "./ipc";

function Harness() {
  return <ChatSelector chats={useChats()} />;
}

const three: Chat[] = [
  chat({ id: "c1", title: "CSV cleanup", updated_at: "2026-11-20T10:00:00.000Z" }),
  chat({ id: "c2", title: "Landing page", updated_at: "2026-11-21T10:00:00.000Z" }),
  chat({ id: "c3", title: "Budget sheet", updated_at: "2026-11-22T10:00:00.000Z" }),
];

/** A backend whose delete_chat removes the chat (or does what `del` says). */
function backend(del?: Handler<"delete_chat">) {
  let chats = [...three];
  return mockCommands({
    list_chats: () => chats,
    delete_chat:
      del ??
      ((a) => {
        chats = chats.filter((c) => c.id !== a.chatId);
        return null;
      }),
  });
}

/** The titles in the list, top to bottom. */
function titles(): string[] {
  const list = screen.queryByRole("list", { name: "Chat list" });
  return list === null ? [] : [...list.querySelectorAll(".chat-title")].map((b) => b.textContent ?? "");
}

const current = () => screen.getByRole("button", { current: true });

/** Lets time pass, and the IPC answers it led to arrive. */
async function pass(ms: number) {
  await act(async () => {
    await vi.advanceTimersByTimeAsync(ms);
  });
}

let user: ReturnType<typeof userEvent.setup>;

/**
 * Shows the list, on a fake clock the tests move. It also moves with real
 * time (Testing Library's own waits are timers too), a few ms per test.
 */
async function shown() {
  vi.useFakeTimers({ shouldAdvanceTime: true });
  const view = render(<Harness />);
  await screen.findByRole("button", { name: "Budget sheet" });
  user = userEvent.setup({ advanceTimers: vi.advanceTimersByTime });
  return view;
}

afterEach(() => {
  vi.useRealTimers();
});

describe("deleting a chat", () => {
  it("takes it out of the list at once; Undo puts it back, selected, and nothing is deleted", async () => {
    const calls = backend();
    await shown();
    expect(current()).toHaveTextContent("Budget sheet");

    await user.click(screen.getByRole("button", { name: "Delete Budget sheet" }));
    expect(titles()).toEqual(["Landing page", "CSV cleanup"]);
    expect(current()).toHaveTextContent("Landing page");
    expect(screen.getByRole("status")).toHaveTextContent("Deleted “Budget sheet”");
    expect(localStorage.getItem(DELETING_KEY)).toBe('["c3"]');

    await pass(UNDO_MS - 1000);
    await user.click(screen.getByRole("button", { name: "Undo deleting “Budget sheet”" }));
    expect(titles()).toEqual(["Budget sheet", "Landing page", "CSV cleanup"]);
    expect(current()).toHaveTextContent("Budget sheet");
    expect(screen.getByRole("status")).toBeEmptyDOMElement();
    expect(localStorage.getItem(DELETING_KEY)).toBeNull();

    await pass(2 * UNDO_MS);
    expect(argsOf(calls, "delete_chat")).toEqual([]);
    expect(titles()).toEqual(["Budget sheet", "Landing page", "CSV cleanup"]);
  });

  it("deletes it for good once the time is up, exactly once", async () => {
    const calls = backend();
    await shown();
    await user.click(screen.getByRole("button", { name: "Delete Budget sheet" }));

    await pass(UNDO_MS - 500);
    expect(argsOf(calls, "delete_chat")).toEqual([]);
    expect(screen.getByRole("button", { name: "Undo deleting “Budget sheet”" })).toHaveFocus();
    await pass(500);
    expect(argsOf(calls, "delete_chat")).toEqual([{ chatId: "c3" }]);
    expect(screen.queryByRole("button", { name: /^Undo/ })).toBeNull();
    expect(titles()).toEqual(["Landing page", "CSV cleanup"]);
    // Undo had the focus (Delete gave it): it goes to the chat selected now.
    expect(screen.getByRole("button", { name: "Landing page" })).toHaveFocus();
    expect(localStorage.getItem(DELETING_KEY)).toBeNull();

    await pass(2 * UNDO_MS);
    expect(argsOf(calls, "delete_chat")).toHaveLength(1);
    expect(screen.queryByRole("alert")).toBeNull();
  });

  it("deletes the one waiting at once when another is deleted; Undo then brings back only the second", async () => {
    const calls = backend();
    await shown();
    await user.click(screen.getByRole("button", { name: "Delete Budget sheet" }));
    await user.click(screen.getByRole("button", { name: "Delete Landing page" }));
    expect(argsOf(calls, "delete_chat")).toEqual([{ chatId: "c3" }]);
    expect(titles()).toEqual(["CSV cleanup"]);
    expect(screen.getByRole("status")).toHaveTextContent("Deleted “Landing page”");

    await user.click(screen.getByRole("button", { name: "Undo deleting “Landing page”" }));
    expect(titles()).toEqual(["Landing page", "CSV cleanup"]);
    expect(current()).toHaveTextContent("Landing page");
    await pass(2 * UNDO_MS);
    expect(argsOf(calls, "delete_chat")).toEqual([{ chatId: "c3" }]);
    expect(titles()).toEqual(["Landing page", "CSV cleanup"]);
  });

  it("brings the chat back, with the error, when the deletion fails", async () => {
    const calls = backend(() => {
      throw { kind: "io", message: "could not remove chats/c3: permission denied" };
    });
    await shown();
    await user.click(screen.getByRole("button", { name: "Delete Budget sheet" }));
    expect(titles()).toEqual(["Landing page", "CSV cleanup"]);

    await pass(UNDO_MS);
    expect(argsOf(calls, "delete_chat")).toEqual([{ chatId: "c3" }]);
    const alert = screen.getByRole("alert");
    expect(alert).toHaveTextContent("“Budget sheet” was not deleted.");
    expect(alert).toHaveTextContent("could not remove chats/c3: permission denied");
    expect(titles()).toEqual(["Budget sheet", "Landing page", "CSV cleanup"]);
    expect(localStorage.getItem(DELETING_KEY)).toBeNull();
    await user.click(within(alert).getByRole("button", { name: "Dismiss" }));
    expect(screen.queryByRole("alert")).toBeNull();
  });

  it("is done at once when the window goes (pagehide), and only once", async () => {
    const calls = backend();
    await shown();
    await user.click(screen.getByRole("button", { name: "Delete Budget sheet" }));
    act(() => {
      window.dispatchEvent(new Event("pagehide"));
    });
    expect(argsOf(calls, "delete_chat")).toEqual([{ chatId: "c3" }]);
    await pass(2 * UNDO_MS);
    expect(argsOf(calls, "delete_chat")).toHaveLength(1);
    expect(titles()).toEqual(["Landing page", "CSV cleanup"]);
  });

  it("is done at the next start when the window closed without a word, the chat never shown again", async () => {
    const calls = backend();
    const first = await shown();
    await user.click(screen.getByRole("button", { name: "Delete Budget sheet" }));
    first.unmount(); // a closed Tauri window need not fire pagehide
    expect(argsOf(calls, "delete_chat")).toEqual([]);
    expect(localStorage.getItem(DELETING_KEY)).toBe('["c3"]');

    render(<Harness />);
    await pass(0);
    expect(titles()).toEqual(["Landing page", "CSV cleanup"]);
    expect(argsOf(calls, "delete_chat")).toEqual([{ chatId: "c3" }]);
    expect(localStorage.getItem(DELETING_KEY)).toBeNull();
    expect(screen.queryByRole("button", { name: /^Undo/ })).toBeNull();
  });

  it("forgets a note whose chat is gone already (the pagehide's deletion arrived)", async () => {
    localStorage.setItem(DELETING_KEY, '["gone"]');
    const calls = backend();
    await shown();
    await pass(0);
    expect(argsOf(calls, "delete_chat")).toEqual([]);
    expect(localStorage.getItem(DELETING_KEY)).toBeNull();
  });
});
