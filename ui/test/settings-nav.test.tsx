// The settings page's section links: each names a section, brings it into
// view with keyboard focus on its heading, and the section in view is marked.
import { act, render, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { SettingsPanel } from "../src/settings/SettingsPanel";
import { SettingsProvider } from "../src/settings/useSettings";
import { mockCommands } from "./ipc";

const NAMES = ["Model providers", "Agents", "MCP servers", "Pages tools may show", "Secrets", "Logs"];

async function showPanel() {
  mockCommands({ get_settings: () => ({ saved: { frame_origins: [] }, frame_origins_in_effect: [] }) });
  render(
    <SettingsProvider>
      <SettingsPanel />
    </SettingsProvider>,
  );
  await screen.findByText("No other origins are allowed.");
  return screen.getByRole("navigation", { name: "Settings sections" });
}

/** The links marked as the section in view, by name. */
const marked = (nav: HTMLElement) =>
  within(nav)
    .getAllByRole("link")
    .filter((l) => l.hasAttribute("aria-current"))
    .map((l) => l.textContent);

// jsdom has no layout: scrolling is recorded, not done.
let scrolled: Element[] = [];
beforeEach(() => {
  scrolled = [];
  Element.prototype.scrollIntoView = function (this: Element) {
    scrolled.push(this);
  };
});
afterEach(() => {
  delete (Element.prototype as { scrollIntoView?: unknown }).scrollIntoView;
  vi.unstubAllGlobals();
});

describe("settings section links", () => {
  it("name the six sections in page order, each a link to its heading", async () => {
    const nav = await showPanel();
    const links = within(nav).getAllByRole("link");
    expect(links.map((l) => l.textContent)).toEqual(NAMES);
    const headings = screen.getAllByRole("heading", { level: 2 });
    expect(headings.map((h) => h.textContent)).toEqual(NAMES);
    expect(links.map((l) => l.getAttribute("href"))).toEqual(headings.map((h) => `#${h.id}`));
  });

  it("bring the chosen section into view with focus on its heading, and mark it", async () => {
    const nav = await showPanel();
    expect(marked(nav)).toEqual(["Model providers"]);

    await userEvent.click(within(nav).getByRole("link", { name: "MCP servers" }));
    const heading = screen.getByRole("heading", { level: 2, name: "MCP servers" });
    expect(heading).toHaveFocus();
    expect(scrolled).toEqual([heading]);
    expect(marked(nav)).toEqual(["MCP servers"]);
    expect(within(nav).getByRole("link", { name: "MCP servers" })).toHaveAttribute("aria-current", "location");

    // From the keyboard too.
    within(nav).getByRole("link", { name: "Secrets" }).focus();
    await userEvent.keyboard("{Enter}");
    expect(screen.getByRole("heading", { level: 2, name: "Secrets" })).toHaveFocus();
    expect(marked(nav)).toEqual(["Secrets"]);
  });

  it("mark the section scrolled to, and the last one at the page's end", async () => {
    const observers: IntersectionObserverCallback[] = [];
    vi.stubGlobal(
      "IntersectionObserver",
      class {
        constructor(callback: IntersectionObserverCallback) {
          observers.push(callback);
        }
        observe() {}
        disconnect() {}
      },
    );
    const nav = await showPanel();
    const sections = NAMES.map((name) => screen.getByRole("heading", { level: 2, name }).closest("section")!);
    const end = sections[5]!.parentElement!.lastElementChild!;
    /** Lays the page out with these section tops (and the page's end), then lets the observers see it. */
    const layOut = (tops: number[], endTop: number) => {
      sections.forEach((s, i) => {
        s.getBoundingClientRect = () => new DOMRect(0, tops[i]!, 700, 300);
      });
      end.getBoundingClientRect = () => new DOMRect(0, endTop, 700, 0);
      act(() => observers.forEach((o) => o([], {} as IntersectionObserver)));
    };
    const h = window.innerHeight;

    layOut([-900, -100, h * 0.6, h * 1.2, h * 1.6, h * 2], h * 2.4);
    expect(marked(nav)).toEqual(["Agents"]);
    layOut([-1600, -800, h * 0.2, h * 0.8, h * 1.2, h * 1.6], h * 1.9);
    expect(marked(nav)).toEqual(["MCP servers"]);
    // Scrolled to the end: the short last section never reaches the top.
    layOut([-3000, -2200, -1300, -400, h * 0.1, h * 0.6], h);
    expect(marked(nav)).toEqual(["Logs"]);
  });
});
