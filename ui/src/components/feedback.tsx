import type { ReactNode } from "react";
import { errorText } from "../api";
import { CodeText } from "./CodeText";

export function Spinner({ label }: { label: string }) {
  return (
    <div className="loading" role="status" aria-live="polite">
      <span className="spinner" aria-hidden="true" />
      <span>{label}</span>
    </div>
  );
}

/** An error shown where it happened, with an optional way out. */
export function ErrorBox({
  error,
  title,
  onRetry,
  onDismiss,
}: {
  error: unknown;
  title?: string;
  onRetry?: () => void;
  onDismiss?: () => void;
}) {
  return (
    <div className="error-box" role="alert">
      <div className="error-box-text">
        {title !== undefined && <strong>{title} </strong>}
        <span className="error-message">
          <CodeText text={errorText(error)} />
        </span>
      </div>
      {(onRetry !== undefined || onDismiss !== undefined) && (
        <div className="error-box-actions">
          {onRetry !== undefined && (
            <button type="button" className="btn btn-small" onClick={onRetry}>
              Try again
            </button>
          )}
          {onDismiss !== undefined && (
            <button type="button" className="btn btn-small btn-ghost" onClick={onDismiss}>
              Dismiss
            </button>
          )}
        </div>
      )}
    </div>
  );
}

export function EmptyState({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="empty-state">
      <p className="empty-title">{title}</p>
      {children !== undefined && <div className="empty-body">{children}</div>}
    </div>
  );
}

export function Notice({ children, tone = "info" }: { children: ReactNode; tone?: "info" | "warning" | "success" }) {
  return (
    <div className={`notice notice-${tone}`} role={tone === "warning" ? "alert" : "status"}>
      {children}
    </div>
  );
}

export function Badge({ children, tone = "neutral", title }: { children: ReactNode; tone?: string; title?: string }) {
  return (
    <span className={`badge badge-${tone}`} title={title}>
      {children}
    </span>
  );
}
