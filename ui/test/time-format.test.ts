// One way of saying when something happened, in every view: the map's
// labels said "20:34" (hand-made, always 24 hours) where the call cards
// said "08:21:30 PM" (the locale's).
import { describe, expect, it } from "vitest";
import { formatTime } from "../src/lib/format";

const now = new Date(2026, 10, 24, 21, 0, 0);
const at = (day: number, h: number, m: number, s = 0, year = 2026) => new Date(year, 10, day, h, m, s).toISOString();

describe("formatTime", () => {
  it("says the same hours and minutes with or without seconds", () => {
    const iso = at(24, 20, 21, 30);
    const short = formatTime(iso, { now });
    const long = formatTime(iso, { seconds: true, now });
    expect(short).toMatch(/\b(20|08):21\b/);
    expect(long).toMatch(/\b(20|08):21:30\b/);
    // The same words around the time (a day period where the locale has one).
    expect(long.replace(":30", "")).toBe(short);
  });

  it("puts the day before another day's time, and the year before another year's", () => {
    const today = formatTime(at(24, 9, 5), { now });
    const before = formatTime(at(19, 9, 5), { now });
    const lastYear = formatTime(at(19, 9, 5, 0, 2025), { now });
    expect(before.endsWith(today)).toBe(true);
    expect(before).not.toBe(today);
    expect(before).not.toContain("2026");
    expect(lastYear).toContain("2025");
    expect(lastYear.endsWith(today)).toBe(true);
  });

  it("takes epoch milliseconds (a live call's start); a text it cannot read is given back as it is", () => {
    const ms = new Date(2026, 10, 24, 20, 21, 30).getTime();
    expect(formatTime(ms, { seconds: true, now })).toBe(formatTime(new Date(ms).toISOString(), { seconds: true, now }));
    expect(formatTime("not a date")).toBe("not a date");
    expect(formatTime(Number.NaN)).toBe("");
  });
});
