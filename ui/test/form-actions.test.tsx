// One way to end a form: right-aligned, Cancel then the primary action.
import { render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, describe, expect, it, vi } from "vitest";
import { FormActions } from "../src/components/FormActions";
import { resetRuns } from "../src/conversation/runStore";
import { forgetChoices } from "../src/conversation/Switchers";
import { chatBackend, conversation, message, openChat, text } from "./chatBackend";

afterEach(() => {
  resetRuns();
  forgetChoices();
});

const names = (el: HTMLElement) =>
  within(el)
    .getAllByRole("button")
    .map((b) => b.textContent);

describe("a form's closing buttons", () => {
  it("put Cancel first and the primary last, a reset apart before them", async () => {
    const onSubmit = vi.fn();
    const { container } = render(
      <FormActions
        submit="Save"
        busy={false}
        onCancel={vi.fn()}
        onSubmit={onSubmit}
        start={<button type="button">Reset</button>}
      />,
    );
    const actions = container.querySelector<HTMLElement>(".form-actions")!;
    expect(names(actions)).toEqual(["Reset", "Cancel", "Save"]);
    expect(screen.getByRole("button", { name: "Save" })).toHaveClass("btn-primary");
    await userEvent.click(screen.getByRole("button", { name: "Save" }));
    expect(onSubmit).toHaveBeenCalledOnce();
  });

  it("end a message's edit the same way (it said Send edit, then Cancel)", async () => {
    chatBackend({ messages: [message("u1", "m0", "user", [text("Hi")])] });
    await openChat();
    const user = await waitFor(() => {
      const a = conversation().querySelector<HTMLElement>('article[data-role="user"]');
      expect(a).not.toBeNull();
      return a!;
    });
    await userEvent.click(within(user).getByRole("button", { name: "Edit message" }));
    expect(names(user.querySelector<HTMLElement>(".form-actions")!)).toEqual(["Cancel", "Send edit"]);
  });
});
