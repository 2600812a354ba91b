/**
 * The id of the core's Assistant (`agents::ASSISTANT`, checked against the
 * Rust source by test/ipc-contract.test.ts): the agent that answers where
 * no other is named, which a fresh install gives the bundled examples and
 * which cannot be deleted.
 */
export const ASSISTANT_ID = "assistant";
