import { describe, expect, it } from "vitest";
import { requirementShown } from "../src/toolsets/WillRunList";

describe("requirementShown", () => {
  it("shows a hash-locked requirement's release, marked, not its hashes", () => {
    const sha = "a".repeat(64);
    expect(requirementShown(`six==1.16.0 ; python_version >= "3" --hash=sha256:${sha} --hash=sha256:${sha}`)).toBe(
      'six==1.16.0 ; python_version >= "3" (hash-checked)',
    );
    expect(requirementShown("requests>=2.31")).toBe("requests>=2.31");
  });
});
