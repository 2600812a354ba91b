//! Call ids as one request sends them: every call of the history under an
//! id the API takes and no other call of the request has, each result
//! under its call's. A history can hold repeats — a server that sends no
//! ids (`call_0` on every turn), a model that repeated one, two ids one
//! provider's cleaning makes alike (`a.b`, `a_b` for Anthropic) — which
//! Anthropic refuses ("tool_use ids must be unique") and OpenAI-compatible
//! servers pair with the wrong result. A repeat gets the next free
//! `{id}_2`, `{id}_3`, … (cleaned as the provider needs); a result goes to
//! the first call still waiting under its id, so results of a turn that
//! repeated an id are paired in order.

use std::collections::{BTreeSet, HashMap};

/// The ids of one request, given in message order.
pub(crate) struct WireIds {
    /// How the provider takes an id (characters, length).
    clean: fn(&str) -> String,
    used: BTreeSet<String>,
    /// Calls without a result yet: (id as kept, id as sent).
    waiting: Vec<(String, String)>,
    /// The last id each kept id was sent as (a second result of one call).
    last: HashMap<String, String>,
}

impl WireIds {
    pub(crate) fn new(clean: fn(&str) -> String) -> Self {
        Self {
            clean,
            used: BTreeSet::new(),
            waiting: Vec::new(),
            last: HashMap::new(),
        }
    }

    /// The id a call of the history is sent under.
    pub(crate) fn call(&mut self, id: &str) -> String {
        let clean = self.clean;
        let first = clean(id);
        let sent = if self.used.contains(&first) {
            (2..)
                .map(|n| clean(&format!("{id}_{n}")))
                .find(|c| !self.used.contains(c))
                .unwrap_or(first)
        } else {
            first
        };
        self.used.insert(sent.clone());
        self.waiting.push((id.to_owned(), sent.clone()));
        self.last.insert(id.to_owned(), sent.clone());
        sent
    }

    /// The id a result is sent under: its call's.
    pub(crate) fn result(&mut self, id: &str) -> String {
        match self.waiting.iter().position(|(kept, _)| kept == id) {
            Some(at) => self.waiting.remove(at).1,
            None => self.last.get(id).cloned().unwrap_or_else(|| (self.clean)(id)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::WireIds;

    fn underscores(id: &str) -> String {
        id.chars().map(|c| if c == '.' { '_' } else { c }).collect()
    }

    #[test]
    fn repeated_and_colliding_ids_are_sent_apart_and_results_follow_their_calls() {
        let mut ids = WireIds::new(underscores);
        // One turn repeating an id: the results pair in order.
        assert_eq!((ids.call("x"), ids.call("x")), ("x".to_owned(), "x_2".to_owned()));
        assert_eq!((ids.result("x"), ids.result("x")), ("x".to_owned(), "x_2".to_owned()));
        // The next turn's `x` is a third call.
        assert_eq!(ids.call("x"), "x_3");
        assert_eq!(ids.result("x"), "x_3");
        // Two ids cleaned alike stay two.
        assert_eq!(
            (ids.call("a.b"), ids.call("a_b")),
            ("a_b".to_owned(), "a_b_2".to_owned())
        );
        assert_eq!(
            (ids.result("a_b"), ids.result("a.b")),
            ("a_b_2".to_owned(), "a_b".to_owned())
        );
        // A result with no call waiting: its call's last id, or the id cleaned.
        assert_eq!(
            (ids.result("x"), ids.result("y.z")),
            ("x_3".to_owned(), "y_z".to_owned())
        );
    }
}
