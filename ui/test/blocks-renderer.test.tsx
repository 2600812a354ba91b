import { fireEvent, render, screen, waitFor } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import type { ToolCallRecord } from "../src/bindings";
import { CallView } from "../src/renderers/CallView";
import { SettingsProvider } from "../src/settings/useSettings";
import { call, plan } from "./fixtures";
import { mockCommands } from "./ipc";

function show(c: ToolCallRecord) {
  return render(
    <SettingsProvider>
      <CallView call={c} />
    </SettingsProvider>,
  );
}

const PIXEL = "data:image/png;base64,iVBORw0KGgo=";

describe("blocks renderer (MCP content of several parts)", () => {
  it("shows every part in the server's order, a repeated image twice", async () => {
    mockCommands({});
    const { container } = show(
      call({
        render_plan: plan("blocks", {
          blocks: [
            { renderer: "document", config: { content: "two **charts**" } },
            { renderer: "image", config: { url: PIXEL } },
            { renderer: "image", config: { url: PIXEL } },
            { renderer: "document", config: { content: "after the charts\n\n[more](https://example.com/more)" } },
            { renderer: "code", config: { content: '{"n": 1}', language: "json", path: "file:///data.json" } },
          ],
        }),
      }),
    );
    const parts = [...container.querySelectorAll<HTMLElement>(".blocks-part")];
    const part = (i: number): HTMLElement => parts[i] ?? container;
    expect(parts).toHaveLength(5);
    await waitFor(() => expect(part(0).querySelector("strong")).toHaveTextContent("charts"));
    const images = screen.getAllByRole("img");
    expect(images.map((i) => i.getAttribute("src"))).toEqual([PIXEL, PIXEL]);
    expect(part(1)).toContainElement(images[0] ?? null);
    expect(part(2)).toContainElement(images[1] ?? null);
    await waitFor(() => expect(part(3)).toHaveTextContent("after the charts"));
    expect(screen.getByRole("link", { name: "more" })).toBeInTheDocument();
    expect(part(4)).toHaveTextContent("JSON");
    await waitFor(() => expect(part(4).querySelector(".cm-content")).toHaveTextContent('{"n": 1}'));
  });

  it("shows a part no list uses as a notice, the others still", async () => {
    mockCommands({});
    show(
      call({
        render_plan: plan("blocks", {
          blocks: [
            { renderer: "html", config: { file: "page.html" } },
            { renderer: "document", config: { content: "still here" } },
          ],
        }),
      }),
    );
    expect(screen.getByText(/Part 1 is shown by “html”/)).toBeInTheDocument();
    expect(await screen.findByText("still here")).toBeInTheDocument();
  });

  it("plays a sound the tool returned where it is, and says when it cannot", async () => {
    mockCommands({});
    const beep = "data:audio/wav;base64,UklGRnQAAABXQVZF";
    const { container } = show(
      call({
        render_plan: plan("blocks", {
          blocks: [
            { renderer: "document", config: { content: "the alarm:" } },
            { renderer: "audio", config: { url: beep, label: "demo://alarm.wav" } },
            { renderer: "audio", config: { url: "https://example.com/a.mp3" } },
          ],
        }),
      }),
    );
    const player = container.querySelector("audio");
    expect(player).toHaveAttribute("src", beep);
    expect(player).toHaveAttribute("controls");
    expect(player).toHaveAccessibleName("demo://alarm.wav");
    expect(container.querySelector(".audio-renderer")).toHaveTextContent("demo://alarm.wav · audio/wav");
    // Only data: audio is played: no address elsewhere is fetched.
    expect(container.querySelectorAll("audio")).toHaveLength(1);
    expect(screen.getByText("This tool gave no audio to play.")).toBeInTheDocument();
    // A format the webview cannot play says so instead of a dead player.
    fireEvent.error(player as HTMLAudioElement);
    expect(
      await screen.findByText("The tool’s audio (audio/wav) is not a format this app can play."),
    ).toBeInTheDocument();
  });
});
