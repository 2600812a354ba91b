/** Words about a provider shared by its row and its edit form. */
import type { ProviderRecord } from "../bindings";

/** Where its key comes from now: "key in the keychain", "key from $OPENAI_API_KEY", "no key". */
export function keyText(p: ProviderRecord): string {
  if (p.key_from === null) return "no key";
  return p.key_from === "keychain" || p.key_from === "file" ? `key in the ${p.key_from}` : `key from $${p.key_from}`;
}
