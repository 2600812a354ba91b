//! Agent ids: the rule an id follows (the toolset id rule) and the id a
//! name gives — the one rule for it: the CLI's `agent create` without
//! `--id`, the app form's Id field (which shows it as the name is typed)
//! and a create that names no id all use [`id_from_name`].

/// An agent id follows the toolset id rule without `_`: 1-64 of `a-z`,
/// `0-9`, `-`, starting with a letter or digit.
pub fn is_agent_id(s: &str) -> bool {
    crate::ids::is_namespace_id(s) && !s.contains('_')
}

/// The id a new agent gets from its name: "Données Analyst" →
/// `donnees-analyst` (accents dropped after NFKD, letters NFKD does not
/// split spelled in ASCII — "Straße" → `strasse`, "Ørsted" → `orsted` —,
/// any other run of characters an id cannot take one `-`, at most 64).
/// `None` when nothing is left ("数据"): the person gives one.
pub fn id_from_name(name: &str) -> Option<String> {
    use unicode_normalization::UnicodeNormalization;
    use unicode_normalization::char::is_combining_mark;
    let mut id = String::new();
    for c in name
        .nfkd()
        .filter(|c| !is_combining_mark(*c))
        .flat_map(char::to_lowercase)
    {
        let ascii = match c {
            'ß' => "ss",
            'æ' => "ae",
            'œ' => "oe",
            'þ' => "th",
            'ø' => "o",
            'đ' | 'ð' => "d",
            'ł' => "l",
            'ħ' => "h",
            'ı' => "i",
            c if c.is_ascii_lowercase() || c.is_ascii_digit() => {
                id.push(c);
                continue;
            }
            _ => {
                if !id.is_empty() && !id.ends_with('-') {
                    id.push('-');
                }
                continue;
            }
        };
        id.push_str(ascii);
    }
    let id: String = id.chars().take(64).collect();
    let id = id.trim_end_matches('-');
    (!id.is_empty()).then(|| id.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_id_from_a_name_keeps_its_letters_without_accents() {
        for (name, id) in [
            ("Data Analyst", Some("data-analyst")),
            ("Données Analyst", Some("donnees-analyst")),
            ("  Élève nº2 — Ωmega ", Some("eleve-no2-mega")),
            ("Ångström", Some("angstrom")),
            ("数据", None),
            ("---", None),
        ] {
            let made = id_from_name(name);
            assert_eq!(made.as_deref(), id, "{name:?}");
            assert!(made.is_none_or(|m| is_agent_id(&m)), "{name:?}");
        }
        assert_eq!(id_from_name(&"a".repeat(70)).map(|i| i.len()), Some(64));
        assert_eq!(
            id_from_name(&format!("{} b", "a".repeat(63))).as_deref(),
            Some(&*"a".repeat(63))
        );
    }

    #[test]
    fn letters_nfkd_does_not_split_are_spelled_in_ascii_not_dropped() {
        for (name, id) in [
            ("Straße", "strasse"),
            ("STRAẞE", "strasse"),
            ("Æsir Ørsted", "aesir-orsted"),
            ("Œuvre", "oeuvre"),
            ("Đorđe", "dorde"),
            ("Łódź", "lodz"),
            ("Þór", "thor"),
            ("Guðrún", "gudrun"),
            ("Ðóra", "dora"),
            ("Ħamrun", "hamrun"),
            ("Dıyarbakır", "diyarbakir"),
        ] {
            let made = id_from_name(name);
            assert_eq!(made.as_deref(), Some(id), "{name:?}");
            assert!(made.is_some_and(|m| is_agent_id(&m)), "{name:?}");
        }
        // Each letter may become two: still at most 64.
        assert_eq!(id_from_name(&"ß".repeat(40)).map(|i| i.len()), Some(64));
    }
}
