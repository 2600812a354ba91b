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

afterEach(async () => {
  cleanup();
  // A listener whose registration answers after its component went
  // unregisters then: let it, while the mocked event plugin still exists
  // (clearMocks removes it, and the late unregister threw past the test).
  await new Promise((resolve) => setTimeout(resolve, 0));
  clearMocks();
  // What a test chose (the tool list shown or hidden) is not the next one's.
  localStorage.clear();
});
