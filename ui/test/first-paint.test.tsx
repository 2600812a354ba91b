// The start-up probe: the app opens on the Chat tab, and the shell is told
// of the first paint once that tab knows the providers — once, not again on
// a tab switch. (A file of its own: the probe reports once per page.)
import { screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { expect, it } from "vitest";
import { chatBackend, openChat } from "./chatBackend";
import { argsOf } from "./ipc";

it("reports the first paint once the Chat tab it opens on has its providers", async () => {
  // The toolset list (a hidden tab now) never loads: the probe must not
  // wait for it.
  const b = chatBackend({ extra: { first_paint: () => null, list_toolsets: () => new Promise(() => {}) } });
  await openChat();
  expect(screen.getByRole("tab", { name: "Chat" })).toHaveAttribute("aria-selected", "true");
  await waitFor(() => expect(argsOf(b.calls, "list_providers").length).toBeGreaterThan(0));
  await waitFor(() => expect(argsOf(b.calls, "first_paint")).toHaveLength(1));
  await userEvent.click(screen.getByRole("tab", { name: "Toolsets" }));
  await userEvent.click(screen.getByRole("tab", { name: "Chat" }));
  await new Promise((r) => setTimeout(r, 50));
  expect(argsOf(b.calls, "first_paint")).toHaveLength(1);
});
