import "@testing-library/jest-dom/vitest";
import { clearMocks } from "@tauri-apps/api/mocks";
import { cleanup } from "@testing-library/react";
import { afterEach, beforeAll } from "vitest";
import { forgetReads } from "../src/api";
import { loadLazyModules } from "../src/lib/lazy";

// jsdom has no layout: CodeMirror measures text through these.
function emptyRects(): DOMRectList {
  const list: DOMRect[] = [];
  return Object.assign(list, { item: (i: number) => list[i] ?? null }) as unknown as DOMRectList;
}
if (typeof Range !== "undefined") {
  Range.prototype.getClientRects = emptyRects;
  Range.prototype.getBoundingClientRect = () => new DOMRect(0, 0, 0, 0);
}

// CodeMirror and markdown-it are chunks the app loads on first use or once
// it is idle after its first paint; tests see the views as they are then
// (lazy.test.tsx shows what comes before).
beforeAll(async () => {
  await import("../src/renderers/CodeEditor");
  await import("../src/renderers/DocumentRenderer");
  await import("../src/conversation/Markdown");
  await loadLazyModules();
});

afterEach(async () => {
  cleanup();
  // A listener whose registration answers after its component went
  // unregisters then: let it, while the mocked event plugin still exists
  // (clearMocks removes it, and the late unregister threw past the test).
  await new Promise((resolve) => setTimeout(resolve, 0));
  clearMocks();
  // A read one test left unanswered is not the next test's.
  forgetReads();
  // What a test chose (the tool list shown or hidden) is not the next one's.
  localStorage.clear();
});
