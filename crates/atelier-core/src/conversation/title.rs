//! A new chat's title, from its first exchange: a short model call, or the
//! first words of the person's message when the model does not answer.

use atelier_llm::{Client, Message as LlmMessage, Request};
use tokio_util::sync::CancellationToken;

use super::Conversation;
use crate::Result;
use crate::model::Chat;

/// The longest title kept.
const MAX_TITLE: usize = 60;

/// The first words of `text`, as a title.
pub(crate) fn first_words(text: &str) -> String {
    let words: Vec<&str> = text.split_whitespace().take(8).collect();
    clip(&words.join(" "))
}

fn clip(s: &str) -> String {
    let s: String = s.chars().take(MAX_TITLE).collect();
    s.trim().to_owned()
}

/// A model's answer made a title: its first line, no quotes, no `Title:`,
/// no full stop at the end.
pub(crate) fn clean(answer: &str) -> Option<String> {
    let line = answer.lines().map(str::trim).find(|l| !l.is_empty())?;
    let line = line.strip_prefix("Title:").unwrap_or(line).trim();
    let line = line.trim_matches(|c: char| matches!(c, '"' | '\'' | '*' | '#' | '`' | '“' | '”'));
    let line = line.trim_end_matches(['.', '!']).trim();
    (!line.is_empty()).then(|| clip(line))
}

impl Conversation<'_> {
    /// Names a chat that still has a placeholder title after its first run.
    pub(super) async fn name_chat(
        &self,
        chat: &Chat,
        client: &Client,
        model: &str,
        question: &str,
        answer: &str,
    ) -> Result<()> {
        let excerpt = |s: &str| s.chars().take(1000).collect::<String>();
        let request = Request {
            model: model.to_owned(),
            system: Some(
                "You name conversations. Answer with a title of at most six words: no quotes, no final full stop."
                    .into(),
            ),
            messages: vec![LlmMessage::user(format!(
                "The person wrote:\n{}\n\nThe answer began:\n{}",
                excerpt(question),
                excerpt(answer)
            ))],
            max_tokens: Some(32),
            ..Default::default()
        };
        let mut ignore = |_: &atelier_llm::Event| {};
        let title = match client.stream(&request, &CancellationToken::new(), &mut ignore).await {
            Ok(turn) => clean(&turn.text).unwrap_or_else(|| first_words(question)),
            Err(f) => {
                tracing::info!(chat = %chat.id, error = %f.error, "no title from the model; using the first words");
                first_words(question)
            }
        };
        self.app.chats().rename(&chat.id, &title).await?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn titles_are_one_clean_short_line() {
        assert_eq!(
            clean("\"Autumn Haiku Files.\"\n\nmore").as_deref(),
            Some("Autumn Haiku Files")
        );
        assert_eq!(
            clean("Title: **CSV sales summary**").as_deref(),
            Some("CSV sales summary")
        );
        assert_eq!(clean("  \n "), None);
        assert_eq!(
            first_words("please   write a haiku about autumn leaves falling down slowly now"),
            "please write a haiku about autumn leaves falling"
        );
        assert!(first_words(&"x".repeat(200)).chars().count() <= MAX_TITLE);
    }
}
