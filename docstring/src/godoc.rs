//! Go doc comments: prose, with no parameter, return or error sections (go.dev/doc/comment).
//! The one structure the convention has is a paragraph that opens with `Deprecated: `,
//! kept in `others` under `deprecated`; a comment without one is [`Style::Plain`].
//!
//! ```
//! use codemine_docstring::{parse, Language, Style};
//!
//! let d = parse("// Dial connects.\n//\n// Deprecated: Use DialContext.", Language::Go);
//! assert_eq!(d.style, Style::Godoc);
//! assert_eq!(d.others[0].text, "Use DialContext.");
//! ```

use crate::model::{DocstringParams, Other, Style};

pub(crate) fn parse(text: &str) -> DocstringParams {
    let mut out = DocstringParams::default();
    let mut paragraph: Vec<&str> = Vec::new();
    // A trailing empty line closes the last paragraph.
    for line in text.lines().map(str::trim).chain(std::iter::once("")) {
        if !line.is_empty() {
            paragraph.push(line);
            continue;
        }
        if let Some(first) = paragraph.first() {
            if let Some(rest) = first.strip_prefix("Deprecated:") {
                let mut lines = vec![rest.trim()];
                lines.extend(paragraph.iter().skip(1));
                out.others.push(Other {
                    section: "deprecated".to_string(),
                    text: lines.join("\n").trim().to_string(),
                });
            }
        }
        paragraph.clear();
    }
    out.finish(Style::Godoc)
}
