// What a screen reader hears of a run: one polite region that says the
// answer is coming, that a tool waits for approval, and the whole answer at
// the end — the streamed tokens are never put in it one by one.
import { act, screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it } from "vitest";
import { chatBackend, deleteWaitsForApproval, openChat, text } from "./chatBackend";

const region = () => screen.getByTestId("run-announcer");

describe("the run's live region", () => {
  it("is polite, says Answering… while tokens stream, then the whole answer once", async () => {
    const b = chatBackend();
    const box = await openChat();
    expect(region()).toHaveAttribute("role", "status");
    expect(region()).toHaveAttribute("aria-live", "polite");
    expect(region()).toHaveTextContent(/^$/);
    await userEvent.type(box, "Write a haiku{Enter}");
    await waitFor(() => expect(b.runs).toHaveLength(1));
    const run = b.run();
    act(() => {
      run.save("user", [text("Write a haiku")]);
      run.feed({ type: "text_delta", text: "Autumn leaves" });
    });
    await waitFor(() => expect(screen.getByRole("article", { name: "Answer" })).toHaveTextContent("Autumn leaves"));
    expect(region()).toHaveTextContent(/^Answering…$/);
    act(() => run.feed({ type: "text_delta", text: " drift down" }));
    await waitFor(() => expect(screen.getByRole("article", { name: "Answer" })).toHaveTextContent("drift down"));
    expect(region()).toHaveTextContent(/^Answering…$/);

    act(() => {
      run.save("assistant", [text("Autumn leaves drift down")]);
      run.end();
    });
    await waitFor(() => expect(region()).toHaveTextContent(/^Answer: Autumn leaves drift down$/));
  });

  it("says which tool waits for the person's approval", async () => {
    const b = chatBackend();
    const box = await openChat();
    await deleteWaitsForApproval(b, box);
    await waitFor(() => expect(region()).toHaveTextContent(/^delete_file waits for your approval\.$/));
  });
});
