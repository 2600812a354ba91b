// A region of the window that fails alone: an error while one view renders
// (a bad value in a card, a renderer, a settings section) is shown where
// that view was, with a way to draw it again, and the rest of the app goes
// on — without a boundary React unmounts the whole tree and the window is
// left white.

import { Component, Fragment, type ErrorInfo, type ReactNode } from "react";
import { errorText } from "../api";
import { CopyButton } from "../conversation/CopyButton";
import { logViewError } from "../lib/uiErrors";

type Props = {
  /** The region, in words ("the conversation", "Settings: Agents"): in the log, not on screen. */
  name: string;
  children: ReactNode;
};

type State = { error: unknown; details: string; mount: number };

/** What "Copy" gives: the message, where it was thrown, and the components it was in. */
function detailsOf(name: string, error: unknown, componentStack: string | null | undefined): string {
  const stack = error instanceof Error && error.stack !== undefined ? error.stack : errorText(error);
  return [`View: ${name}`, stack, componentStack?.trim() ? `Components:\n${componentStack.trim()}` : ""]
    .filter((s) => s !== "")
    .join("\n\n");
}

export class ViewBoundary extends Component<Props, State> {
  override state: State = { error: null, details: "", mount: 0 };

  static getDerivedStateFromError(error: unknown): Partial<State> {
    // `null` would read as "no error": keep something to show.
    return { error: error ?? new Error("An empty error was thrown.") };
  }

  override componentDidCatch(error: unknown, info: ErrorInfo) {
    this.setState({ details: detailsOf(this.props.name, error, info.componentStack) });
    logViewError(this.props.name, error, info.componentStack);
  }

  /** Draws the view afresh: a new mount, its state and reads started over. */
  private reload = () => this.setState((s) => ({ error: null, details: "", mount: s.mount + 1 }));

  override render() {
    const { error, details, mount } = this.state;
    if (error === null) return <Fragment key={mount}>{this.props.children}</Fragment>;
    const text = details || detailsOf(this.props.name, error, null);
    return (
      <div className="error-box view-failed" role="alert">
        <div className="error-box-text">
          <strong>This view failed: </strong>
          <span className="error-message">{errorText(error)}</span>
          <details className="view-failed-details">
            <summary>Details</summary>
            <pre className="code-block">{text}</pre>
          </details>
        </div>
        <div className="error-box-actions">
          <button type="button" className="btn btn-small" onClick={this.reload}>
            Reload view
          </button>
          <CopyButton text={text} label="Copy the error's details" />
        </div>
      </div>
    );
  }
}
