import type { CallStatus, ToolCallRecord } from "../bindings";

/** What a person calls a call's state: the core records a denial as an error of kind `denied`. */
export type ShownStatus = CallStatus | "denied";

/** The one place a denial is told from a failure. */
export function shownStatus(call: Pick<ToolCallRecord, "status" | "error_kind">): ShownStatus {
  return call.status === "error" && call.error_kind === "denied" ? "denied" : call.status;
}
