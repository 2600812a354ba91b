import "@testing-library/jest-dom/vitest";
import { clearMocks } from "@tauri-apps/api/mocks";
import { cleanup } from "@testing-library/react";
import { afterEach } from "vitest";

// jsdom has no layout: CodeMirror measures text through these.
function emptyRects(): DOMRectList {
  const list: DOMRect[] = [];
  return Object.assign(list, { item: (i: number) => list[i] ?? null }) as unknown as DOMRectList;
}
if (typeof Range !== "undefined") {
  Range.prototype.getClientRects = emptyRects;
  Range.prototype.getBoundingClientRect = () => new DOMRect(0, 0, 0, 0);
}

afterEach(() => {
  cleanup();
  clearMocks();
  // What a test chose (the tool list shown or hidden) is not the next one's.
  localStorage.clear();
});
