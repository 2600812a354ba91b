import { useEffect, useRef, useState, type MouseEvent, type RefObject } from "react";

/** The settings page's sections, in page order: each one's h2 id and name. */
export const SETTINGS_SECTIONS = [
  { id: "providers-title", label: "Model providers" },
  { id: "agents-title", label: "Agents" },
  { id: "mcp-title", label: "MCP servers" },
  { id: "frame-origins-title", label: "Pages tools may show" },
  { id: "secrets-title", label: "Secrets" },
  { id: "logs-title", label: "Logs" },
] as const;

type SectionId = (typeof SETTINGS_SECTIONS)[number]["id"];

/** A section is the one in view once its top is above this share of the window's height. */
const LINE = 0.3;

function sectionOf(id: string): HTMLElement | null {
  const heading = document.getElementById(id);
  return heading?.closest("section") ?? heading;
}

/**
 * The section in view: the last one whose top is above the line, or the
 * last of all once the page is scrolled to its end (a short last section
 * never reaches the line). `null` while the page is not laid out (hidden).
 */
function sectionInView(end: HTMLElement | null): SectionId | null {
  const boxes = SETTINGS_SECTIONS.flatMap((s) => {
    const box = sectionOf(s.id)?.getBoundingClientRect();
    return box !== undefined && (box.width > 0 || box.height > 0) ? [{ id: s.id, top: box.top }] : [];
  });
  const [first, last] = [boxes[0], boxes[boxes.length - 1]];
  if (first === undefined || last === undefined) return null;
  const height = window.innerHeight;
  const endTop = end?.getBoundingClientRect().top;
  if (endTop !== undefined && endTop <= height && first.top < 0) return last.id;
  let current = first.id;
  for (const b of boxes) if (b.top <= height * LINE) current = b.id;
  return current;
}

function reducedMotion(): boolean {
  return typeof window.matchMedia === "function" && window.matchMedia("(prefers-reduced-motion: reduce)").matches;
}

/**
 * The settings page's table of contents: a link per section (a rail beside
 * the page on wide windows, a row above it on narrow ones). A click brings
 * the section into view and puts keyboard focus on its heading; the
 * section in view is marked (IntersectionObserver; without it, the last one
 * chosen). `end`: an element after the last section (the page's end in view).
 */
export function SettingsNav({ active, end }: { active: boolean; end: RefObject<HTMLElement | null> }) {
  const [current, setCurrent] = useState<SectionId>(SETTINGS_SECTIONS[0].id);
  // The section just chosen stays marked while the page scrolls to it (and
  // after, when the page ends before it reaches the top), until the person
  // scrolls or presses a key.
  const chosen = useRef<SectionId | null>(null);
  const nav = useRef<HTMLElement>(null);

  // Where a heading brought into view stops: below the links when they
  // are a row kept above the page (its height, as it wraps, for the CSS).
  useEffect(() => {
    const el = nav.current;
    const layout = el?.parentElement;
    if (el === null || layout == null || typeof ResizeObserver === "undefined") return;
    const measure = new ResizeObserver(() => layout.style.setProperty("--settings-nav-height", `${el.offsetHeight}px`));
    measure.observe(el);
    return () => measure.disconnect();
  }, []);

  useEffect(() => {
    if (!active || typeof IntersectionObserver === "undefined") return;
    const update = () => {
      if (chosen.current !== null) return;
      const id = sectionInView(end.current);
      if (id !== null) setCurrent(id);
    };
    // Fires as a section's top crosses the line (the band above it changes)…
    const band = new IntersectionObserver(update, { rootMargin: `0px 0px -${100 - LINE * 100}% 0px` });
    for (const s of SETTINGS_SECTIONS) {
      const section = sectionOf(s.id);
      if (section !== null) band.observe(section);
    }
    // …and as the page's end comes into view.
    const bottom = new IntersectionObserver(update);
    if (end.current !== null) bottom.observe(end.current);
    const release = () => {
      chosen.current = null;
    };
    const intents = ["wheel", "touchmove", "keydown", "pointerdown"] as const;
    for (const t of intents) window.addEventListener(t, release, { capture: true, passive: true });
    return () => {
      band.disconnect();
      bottom.disconnect();
      for (const t of intents) window.removeEventListener(t, release, { capture: true });
    };
  }, [active, end]);

  const go = (e: MouseEvent<HTMLAnchorElement>, id: SectionId) => {
    const heading = document.getElementById(id);
    e.preventDefault();
    if (heading === null) return; // the section failed to draw: its error box says so
    if (!heading.hasAttribute("tabindex")) heading.setAttribute("tabindex", "-1");
    heading.focus({ preventScroll: true });
    if (typeof heading.scrollIntoView === "function") {
      heading.scrollIntoView({ block: "start", behavior: reducedMotion() ? "auto" : "smooth" });
    }
    chosen.current = id;
    setCurrent(id);
  };

  return (
    <nav ref={nav} className="settings-nav" aria-label="Settings sections">
      <ul>
        {SETTINGS_SECTIONS.map((s) => (
          <li key={s.id}>
            <a
              href={`#${s.id}`}
              className="settings-nav-link"
              aria-current={current === s.id ? "location" : undefined}
              onClick={(e) => go(e, s.id)}
            >
              {s.label}
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
}
