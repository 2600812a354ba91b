// A core message's `backticked` parts read as code wherever an error is
// shown, and a command to run has a Copy button beside it.
import { render, screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { ErrorBox } from "../src/components/feedback";
import { ErrorView } from "../src/renderers/ErrorView";

const SAID =
  "MCP server forecast could not start: ${FORECAST_REGION} has no value: set it with " +
  "`atelier secrets set toolset:weather FORECAST_REGION`, or in `env.FORECAST_REGION`";

describe("an error naming a command", () => {
  it("shows it as code with a Copy button in an error box", () => {
    render(<ErrorBox error={{ kind: "mcp", message: SAID }} />);
    expect(screen.getByText("atelier secrets set toolset:weather FORECAST_REGION").tagName).toBe("CODE");
    expect(
      screen.getByRole("button", { name: "Copy the command: atelier secrets set toolset:weather FORECAST_REGION" }),
    ).toBeInTheDocument();
    expect(screen.getByText("env.FORECAST_REGION").tagName).toBe("CODE");
    expect(screen.queryByText(/`/)).toBeNull();
  });

  it("shows it as code in a tool's error view", () => {
    render(<ErrorView info={{ kind: "exception", message: SAID, traceback: null, stdout: null, stderr: null }} />);
    expect(screen.getByText("atelier secrets set toolset:weather FORECAST_REGION").tagName).toBe("CODE");
  });
});
