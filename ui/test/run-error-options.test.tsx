// A failed answer whose fix is a setting of the chat (the answer cut at the
// output limit, a message alone over the context window) opens the chat's
// Model options from the error itself, the focus in them.
import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, describe, expect, it } from "vitest";
import { resetRuns } from "../src/conversation/runStore";
import { forgetChoices } from "../src/conversation/Switchers";
import { chatBackend, message, meta, openChat, text } from "./chatBackend";

afterEach(() => {
  resetRuns();
  forgetChoices();
});

const panelName = "This chat's model settings";

async function failedWith(kind: string) {
  chatBackend({
    messages: [
      message("u1", "m0", "user", [text("Write the whole report")]),
      message("a1", "u1", "assistant", [text("The report begins")], {
        meta: meta({ status: "failed", error_kind: kind, error: "raw provider words" }),
      }),
    ],
  });
  await openChat();
  return screen.findByRole("alert");
}

describe("a failed answer whose fix is the chat's Model options", () => {
  it.each([
    ["output_limit", "Max tokens of an answer"],
    ["message_too_long", "Context window"],
  ])("%s: Model options in the error opens the panel, the focus in it", async (kind, field) => {
    const error = await failedWith(kind);
    expect(error).toHaveTextContent(field);
    expect(screen.queryByRole("form", { name: panelName })).toBeNull();
    const button = within(error).getByRole("button", { name: "Model options" });
    await userEvent.click(button);
    const panel = await screen.findByRole("form", { name: panelName });
    expect(within(panel).getByRole("textbox", { name: "Temperature" })).toHaveFocus();
    expect(within(panel).getByRole("textbox", { name: field })).toBeVisible();
    // Escape closes it, and the focus goes back to the error's button.
    await userEvent.keyboard("{Escape}");
    await waitFor(() => expect(screen.queryByRole("form", { name: panelName })).toBeNull());
    expect(button).toHaveFocus();
  });

  it("already open: the error's button puts the focus back in the panel", async () => {
    const error = await failedWith("output_limit");
    await userEvent.click(within(error).getByRole("button", { name: "Model options" }));
    const panel = await screen.findByRole("form", { name: panelName });
    const box = screen.getByRole("textbox", { name: "Message" });
    await userEvent.click(box);
    expect(box).toHaveFocus();
    await userEvent.click(within(error).getByRole("button", { name: "Model options" }));
    expect(screen.getByRole("form", { name: panelName })).toBe(panel);
    expect(within(panel).getByRole("textbox", { name: "Temperature" })).toHaveFocus();
  });
});
