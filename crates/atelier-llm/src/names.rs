//! A tool name as the hosted APIs take it in a conversation's history
//! (`^[a-zA-Z0-9_-]{1,64}$` for OpenAI and Anthropic). The names Atelier
//! offers already are; a call is kept under the name the model used, and
//! a model can call a tool by a name it was never offered (`csv.report`,
//! which the router still resolves). Sent back as it was, that name makes
//! the API refuse every later request of the branch
//! (`Invalid 'messages[9].tool_calls[0].function.name'`).

use std::borrow::Cow;

const MAX: usize = 64;

/// `name` itself when the APIs take it; else its letters, digits, `_` and
/// `-` with anything else as `_`, at most 64 characters (`call` if empty).
pub(crate) fn tool_name(name: &str) -> Cow<'_, str> {
    let ok = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '-';
    if !name.is_empty() && name.len() <= MAX && name.chars().all(ok) {
        return Cow::Borrowed(name);
    }
    let cleaned: String = name.chars().map(|c| if ok(c) { c } else { '_' }).take(MAX).collect();
    if cleaned.is_empty() {
        Cow::Borrowed("call")
    } else {
        Cow::Owned(cleaned)
    }
}

#[cfg(test)]
mod tests {
    use super::tool_name;

    #[test]
    fn names_the_apis_take_stay_and_others_are_made_so() {
        assert_eq!(tool_name("csv-report__analyze_csv"), "csv-report__analyze_csv");
        assert_eq!(tool_name("raw.echo"), "raw_echo");
        assert_eq!(tool_name("café:menü"), "caf__men_");
        assert_eq!(tool_name(""), "call");
        let long = "a.".repeat(50);
        assert_eq!(tool_name(&long).len(), 64);
    }
}
