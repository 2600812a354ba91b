//! A tool's arguments checked against its `input_schema` for a form: each
//! violation is tied to the field it is about and said in words ("Required",
//! "Must be at most 4"), not in the validator's terms. The run flow keeps
//! its own wording ([`validate_args`]); both use the same
//! validator, so a form that shows no problem runs.

use jsonschema::error::{TypeKind, ValidationErrorKind};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One violation of a tool's `input_schema` by its arguments.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct ArgProblem {
    /// The field it is about: property names (and list indexes) from the
    /// arguments' top; empty for the arguments as a whole. A missing
    /// required property is its own field.
    pub field: Vec<String>,
    /// What is wrong, in words: "Required", "Must be at most 4".
    pub message: String,
}

/// The validator of a tool's `input_schema`, for the form and the run
/// flow alike. A `format` the schema declares ("email", "date") is
/// checked, not only noted: a form that says "Must look like name@host"
/// and a run that accepts anything would disagree.
pub(crate) fn validator(schema: &Value) -> Result<jsonschema::Validator, jsonschema::ValidationError<'static>> {
    jsonschema::options().should_validate_formats(true).build(schema)
}

/// Every violation of `schema` by `args`, with its JSON pointer.
pub fn validate_args(schema: &Value, args: &Value) -> std::result::Result<(), Vec<String>> {
    let validator = validator(schema).map_err(|e| vec![format!("the tool's input_schema is unusable: {e}")])?;
    let errors = violations(&validator, args);
    if errors.is_empty() { Ok(()) } else { Err(errors) }
}

/// Every violation of `value`, each after its JSON pointer (`/` for the
/// whole): the run flow's wording, for arguments and MCP results alike.
pub(crate) fn violations(validator: &jsonschema::Validator, value: &Value) -> Vec<String> {
    validator
        .iter_errors(value)
        .map(|e| {
            let at = e.instance_path().to_string();
            format!("{}: {e}", if at.is_empty() { "/".to_owned() } else { at })
        })
        .collect()
}

/// Every violation of `schema` by `args`, each under its field, in words.
pub fn arg_problems(schema: &Value, args: &Value) -> Vec<ArgProblem> {
    let validator = match validator(schema) {
        Ok(v) => v,
        Err(e) => {
            return vec![ArgProblem {
                field: Vec::new(),
                message: format!("The tool's input schema is unusable, so no arguments can be checked: {e}"),
            }];
        }
    };
    let mut out = Vec::new();
    for e in validator.iter_errors(args) {
        let field: Vec<String> = e
            .instance_path()
            .as_str()
            .split('/')
            .filter(|s| !s.is_empty())
            .map(unescape)
            .collect();
        // The schema of the value the error is about: the keyword's parent.
        let keyword_at = e.schema_path().as_str();
        let parent = keyword_at.rsplit_once('/').map_or("", |(p, _)| p);
        let description = schema
            .pointer(parent)
            .and_then(|s| s.get("description"))
            .and_then(Value::as_str);
        match e.kind() {
            ValidationErrorKind::Required { property } => {
                let mut f = field.clone();
                f.push(property.as_str().map_or_else(|| property.to_string(), str::to_owned));
                out.push(ArgProblem {
                    field: f,
                    message: "Required".to_owned(),
                });
            }
            ValidationErrorKind::AdditionalProperties { unexpected } => {
                for name in unexpected {
                    let mut f = field.clone();
                    f.push(name.clone());
                    out.push(ArgProblem {
                        field: f,
                        message: "Not an argument of this tool".to_owned(),
                    });
                }
            }
            kind => out.push(ArgProblem {
                field,
                message: in_words(kind, description).unwrap_or_else(|| sentence(&e.to_string())),
            }),
        }
    }
    out
}

/// A JSON Pointer segment as the property name it stands for.
fn unescape(segment: &str) -> String {
    segment.replace("~1", "/").replace("~0", "~")
}

/// The validator's own message, as a sentence.
fn sentence(text: &str) -> String {
    let mut c = text.chars();
    c.next()
        .map_or_else(String::new, |first| first.to_uppercase().chain(c).collect())
}

fn plural(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// What one kind of type is called.
fn type_name(t: &str) -> &'static str {
    match t {
        "integer" => "a whole number",
        "number" => "a number",
        "string" => "text",
        "boolean" => "true or false",
        "array" => "a list",
        "object" => "an object",
        "null" => "empty (null)",
        _ => "another type",
    }
}

/// What a format looks like, shown as an example.
fn format_example(format: &str) -> Option<&'static str> {
    Some(match format {
        "email" | "idn-email" => "Must look like name@host",
        "uri" | "iri" => "Must be a full address like https://example.com/page",
        "uri-reference" | "iri-reference" => "Must be an address like https://example.com/page or /page",
        "date" => "Must be a date like 2026-11-25",
        "date-time" => "Must be a date and time like 2026-11-25T09:30:00Z",
        "time" => "Must be a time like 09:30:00Z",
        "duration" => "Must be a duration like P3DT4H",
        "uuid" => "Must be a UUID like 123e4567-e89b-12d3-a456-426614174000",
        "ipv4" => "Must be an IPv4 address like 192.168.0.1",
        "ipv6" => "Must be an IPv6 address like ::1",
        "hostname" | "idn-hostname" => "Must be a host name like example.com",
        "regex" => "Must be a regular expression",
        _ => return None,
    })
}

/// A limit as written in the schema (`4`, `0.5`).
fn limit(v: &Value) -> String {
    v.to_string()
}

/// The message for a violation, when there are words for it.
fn in_words(kind: &ValidationErrorKind, description: Option<&str>) -> Option<String> {
    use ValidationErrorKind as K;
    Some(match kind {
        K::Type { kind } => {
            let names: Vec<&str> = match kind {
                TypeKind::Single(t) => vec![type_name(&t.to_string())],
                TypeKind::Multiple(set) => set.iter().map(|t| type_name(&t.to_string())).collect(),
            };
            format!("Must be {}", names.join(" or "))
        }
        K::Minimum { limit: l } => format!("Must be at least {}", limit(l)),
        K::Maximum { limit: l } => format!("Must be at most {}", limit(l)),
        K::ExclusiveMinimum { limit: l } => format!("Must be more than {}", limit(l)),
        K::ExclusiveMaximum { limit: l } => format!("Must be less than {}", limit(l)),
        K::MinLength { limit: 1 } => "Must not be empty".to_owned(),
        K::MinLength { limit: n } => format!("Must be at least {}", plural(*n, "character", "characters")),
        K::MaxLength { limit: n } => format!("Must be at most {}", plural(*n, "character", "characters")),
        K::MinItems { limit: n } => format!("Must have at least {}", plural(*n, "item", "items")),
        K::MaxItems { limit: n } => format!("Must have at most {}", plural(*n, "item", "items")),
        K::UniqueItems => "Must not list the same item twice".to_owned(),
        K::Enum { options } => {
            let shown: Vec<String> = options
                .as_array()
                .map(|o| {
                    o.iter()
                        .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_owned))
                        .collect()
                })
                .unwrap_or_default();
            format!("Must be one of: {}", shown.join(", "))
        }
        K::Constant { expected_value } => format!("Must be {expected_value}"),
        K::Pattern { pattern } => match description {
            // A description that is one word is an example of the form
            // ("name@host", "ABC-123"); a sentence is said as it is.
            Some(d) if !d.trim().contains(char::is_whitespace) => format!("Must look like {}", d.trim()),
            Some(d) => format!("Not in the expected form: {d}"),
            None => format!("Not in the expected form (the pattern {pattern})"),
        },
        K::Format { format } => match (format_example(format), description) {
            (Some(words), _) => words.to_owned(),
            (None, Some(d)) => format!("Not a valid {format}: {d}"),
            (None, None) => format!("Not a valid {format}"),
        },
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn problems(schema: Value, args: Value) -> Vec<(String, String)> {
        arg_problems(&schema, &args)
            .into_iter()
            .map(|p| (p.field.join("."), p.message))
            .collect()
    }

    #[test]
    fn each_problem_is_under_its_field_in_words() {
        let schema = json!({
            "type": "object",
            "properties": {
                "path": {"type": "string", "minLength": 1},
                "count": {"type": "integer", "maximum": 4},
                "ratio": {"type": "number"},
                "email": {"type": "string", "pattern": "^[^@]+@[^@]+$", "description": "name@host"},
                "code": {"type": "string", "pattern": "^[A-Z]{3}$"},
                "mode": {"enum": ["overwrite", "append"]},
                "tags": {"type": "array", "items": {"type": "string", "maxLength": 3}, "maxItems": 2},
                "opts": {"type": "object", "properties": {"indent": {"type": "integer", "minimum": 0}}, "required": ["indent"]}
            },
            "required": ["path", "mode"],
            "additionalProperties": false
        });
        let got = problems(
            schema,
            json!({
                "count": 9, "ratio": "abc", "email": "not-an-email", "code": "ab",
                "tags": ["a", "long", "c"], "opts": {}, "extra": 1
            }),
        );
        let want = [
            ("path", "Required"),
            ("mode", "Required"),
            ("count", "Must be at most 4"),
            ("ratio", "Must be a number"),
            ("email", "Must look like name@host"),
            ("code", "Not in the expected form (the pattern ^[A-Z]{3}$)"),
            ("tags", "Must have at most 2 items"),
            ("tags.1", "Must be at most 3 characters"),
            ("opts.indent", "Required"),
            ("extra", "Not an argument of this tool"),
        ];
        for (field, message) in want {
            assert!(
                got.contains(&(field.to_owned(), message.to_owned())),
                "{field}: {message} not in {got:?}"
            );
        }
        assert_eq!(got.len(), want.len(), "{got:?}");
    }

    #[test]
    fn valid_arguments_have_no_problems_and_a_broken_schema_says_so() {
        let schema = json!({"type": "object", "properties": {"n": {"type": "integer"}}});
        assert!(arg_problems(&schema, &json!({"n": 3})).is_empty());
        let broken = arg_problems(&json!({"type": "nope"}), &json!({}));
        assert_eq!(broken.len(), 1);
        assert!(broken[0].field.is_empty());
        assert!(
            broken[0].message.starts_with("The tool's input schema is unusable"),
            "{broken:?}"
        );
    }

    #[test]
    fn a_declared_format_is_checked() {
        let schema = json!({
            "type": "object",
            "properties": {
                "to": {"type": "string", "format": "email"},
                "note": {"type": "string", "format": "textarea"}
            }
        });
        assert_eq!(
            problems(schema.clone(), json!({"to": "not-an-email", "note": "anything"})),
            [("to".to_owned(), "Must look like name@host".to_owned())]
        );
        assert!(arg_problems(&schema, &json!({"to": "me@example.com"})).is_empty());
        assert!(
            super::validate_args(&schema, &json!({"to": "nope"})).is_err(),
            "the run flow agrees"
        );
    }

    #[test]
    fn formats_read_as_examples() {
        assert_eq!(format_example("email"), Some("Must look like name@host"));
        let kind = ValidationErrorKind::Format {
            format: "email".to_owned(),
        };
        assert_eq!(
            in_words(&kind, Some("who to tell")).as_deref(),
            Some("Must look like name@host")
        );
        let other = ValidationErrorKind::Format {
            format: "semver".to_owned(),
        };
        assert_eq!(
            in_words(&other, Some("like 1.2.3")).as_deref(),
            Some("Not a valid semver: like 1.2.3")
        );
    }

    /// A pattern's description that is a sentence is said as one.
    #[test]
    fn a_sentence_describing_a_pattern_is_not_an_example() {
        let schema = json!({"type": "object", "properties": {
            "zip": {"type": "string", "pattern": "^[0-9]{5}$", "description": "Five digits, as on an envelope"}
        }});
        assert_eq!(
            problems(schema, json!({"zip": "12a"})),
            [(
                "zip".to_owned(),
                "Not in the expected form: Five digits, as on an envelope".to_owned()
            )]
        );
    }
}
