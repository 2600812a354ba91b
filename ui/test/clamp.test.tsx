// Long content is cut with a toggle: a tool's document at 480px
// (Expand/Collapse), a long message at about 12 lines (Show more/less).
// jsdom lays nothing out: a cut box's height is faked from its content.
import { render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { resetRuns } from "../src/conversation/runStore";
import { forgetChoices } from "../src/conversation/Switchers";
import { MarkdownView } from "../src/renderers/DocumentRenderer";
import { chatBackend, conversation, message, openChat, text } from "./chatBackend";

/** A box is as tall as 20px a line of its text; a cut one shows 480px at most. */
beforeEach(() => {
  vi.spyOn(HTMLElement.prototype, "scrollHeight", "get").mockImplementation(function (this: HTMLElement) {
    return (this.textContent ?? "").split("\n").length * 20;
  });
  vi.spyOn(HTMLElement.prototype, "clientHeight", "get").mockImplementation(function (this: HTMLElement) {
    const full = (this.textContent ?? "").split("\n").length * 20;
    return this.classList.contains("clamp-cut") ? Math.min(full, 480) : full;
  });
});
afterEach(() => {
  resetRuns();
  forgetChoices();
});

const lines = (n: number) => Array.from({ length: n }, (_, i) => `line ${i + 1}`).join("\n\n");

describe("a tool's document", () => {
  it("is cut at 480px with Expand, and Collapse cuts it again", async () => {
    const { container } = render(<MarkdownView source={"```\n" + lines(200) + "\n```"} />);
    const body = container.querySelector<HTMLElement>(".markdown-body")!;
    const expand = await screen.findByRole("button", { name: "Expand" });
    expect(body).toHaveClass("clamp-cut");
    expect(expand).toHaveAttribute("aria-expanded", "false");
    await userEvent.click(expand);
    expect(body).not.toHaveClass("clamp-cut");
    const collapse = screen.getByRole("button", { name: "Collapse" });
    expect(collapse).toHaveAttribute("aria-expanded", "true");
    await userEvent.click(collapse);
    expect(body).toHaveClass("clamp-cut");
    expect(screen.getByRole("button", { name: "Expand" })).toBeInTheDocument();
  });

  it("has no toggle when it fits", () => {
    render(<MarkdownView source="# Short\n\nA line." />);
    expect(screen.queryByRole("button", { name: "Expand" })).toBeNull();
  });
});

describe("a long message", () => {
  it("is cut while it is being sent too", async () => {
    const b = chatBackend();
    const box = await openChat();
    await userEvent.click(box);
    await userEvent.paste(lines(60));
    await userEvent.keyboard("{Enter}");
    await waitFor(() => expect(b.runs).toHaveLength(1));
    const pending = await screen.findByRole("article", { name: "Your message" });
    expect(await within(pending).findByRole("button", { name: "Show more" })).toBeInTheDocument();
    expect(pending.querySelector(".user-text")).toHaveClass("clamp-cut");
  });

  it("is cut with Show more, opened by it; a short one has no toggle", async () => {
    chatBackend({
      messages: [
        message("u1", "m0", "user", [text(lines(60))]),
        message("a1", "u1", "assistant", [text("Done.")]),
        message("u2", "a1", "user", [text("Thanks.")]),
      ],
    });
    await openChat();
    await waitFor(() => expect(conversation().querySelectorAll('article[data-role="user"]')).toHaveLength(2));
    const [long, short] = [...conversation().querySelectorAll<HTMLElement>('article[data-role="user"]')];
    const more = await within(long!).findByRole("button", { name: "Show more" });
    expect(long!.querySelector(".user-text")).toHaveClass("clamp-cut");
    await userEvent.click(more);
    expect(long!.querySelector(".user-text")).not.toHaveClass("clamp-cut");
    expect(within(long!).getByRole("button", { name: "Show less" })).toBeInTheDocument();
    expect(within(short!).queryByRole("button", { name: "Show more" })).toBeNull();
  });
});
