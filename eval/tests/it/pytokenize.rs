//! The `tokenize` port against CPython 3.11's own `tokenize.generate_tokens`, run in the test
//! on hand-written edge cases and hundreds of generated mutations of them: every token's
//! type, text, start and end, or the same error.

use crate::support;

use std::io::Write;
use std::process::{Command, Stdio};

use codemine_eval::pytokenize::{generate_tokens, Kind, TokenizeError};
use serde_json::{json, Value};

/// Snippets covering every branch of the tokenizer.
const SNIPPETS: &[&str] = &[
    "def f(a, b=1):\n    \"\"\"Doc.\"\"\"\n    return a + b\n",
    "x = 'a' \"b\" b'c' rb'd' BR\"e\" f'{x}' Rb'''g''' u'h'\n",
    "s = '''multi\nline\n'''\n",
    "s = \"\"\"unterminated\nstring\n",
    "t = 'cont\\\nnued'\n",
    "t = 'cont\\\nnot closed\n",
    "u = 'unterminated\nv = 1\n",
    "n = 0x1F + 0o17 + 0b1_0 + 1_000 + 1.5e-3 + .5 + 5. + 3j + 1.2J + 00 + 0_0\n",
    "a **= 2; b //= 3; c >>= 1; d <<= 1; e @= f; g := 1; h -> i; j != k ... l\n",
    "# just a comment\n\n   \n\t# indented comment\nx = 1  # trailing\n",
    "if x:\n\tif y:\n\t\tpass\n\telse:\n  pass\n",
    "if x:\n        a\n    b\n",
    "call(a,\n     b,\n\n     c)\n",
    "x = (1 +\n",
    "x = 1 + \\\n    2\n",
    "x = 1 \\ \n",
    "y = $ ? ! `\n",
    "déf = ñ + 名前 + x²\n",
    "x = 1\r\ny = 2\r\n",
    "no_newline_at_end = 1",
    "# comment at end without newline",
    "class A:\n    def m(self):\n        return [i for i in range(3)]\n\n\nprint(A)\n",
    "\x0cx = 1\n  \x0c y = 2\n",
    "lambda: (yield)\n",
    "async def f():\n    await g()\n",
    "x = f'{a!r:>10}' f\"{b}\"\n",
    "w = r'\\'' + '\\\\' + \"\\\"\"\n",
    "",
    "\n",
    "   \n",
    "\\\n",
];

/// A small deterministic generator (xorshift), so the cases are the same on every run.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

fn cases() -> Vec<String> {
    let mut out: Vec<String> = SNIPPETS.iter().map(|s| s.to_string()).collect();
    let noise: Vec<char> = " \t\n\\'\"#()[]{}:.0123456789xjeE_+-*/=<>!@%&|^~,;$?\r\x0cé"
        .chars()
        .collect();
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    for _ in 0..3000 {
        let mut s = String::new();
        for _ in 0..1 + rng.below(4) {
            s.push_str(SNIPPETS[rng.below(SNIPPETS.len())]);
        }
        let mut chars: Vec<char> = s.chars().collect();
        for _ in 0..rng.below(4) {
            if chars.is_empty() {
                break;
            }
            let at = rng.below(chars.len());
            match rng.below(3) {
                0 => {
                    chars.remove(at);
                }
                1 => chars.insert(at, noise[rng.below(noise.len())]),
                _ => chars[at] = noise[rng.below(noise.len())],
            }
        }
        out.push(chars.into_iter().collect());
    }
    out
}

const REFERENCE: &str = r#"
import io, json, sys, tokenize
assert sys.version_info[:2] == (3, 11), f"the reference is CPython 3.11, this is {sys.version}"
out = []
for src in json.load(sys.stdin):
    try:
        toks = [[tokenize.tok_name[t.type], t.string, list(t.start), list(t.end)]
                for t in tokenize.generate_tokens(io.StringIO(src).readline)]
        out.append({"tokens": toks})
    except tokenize.TokenError as e:
        out.append({"error": "eof_string" if "string" in e.args[0] else "eof_statement"})
    except IndentationError:
        out.append({"error": "dedent"})
json.dump(out, sys.stdout)
"#;

fn kind_name(k: Kind) -> &'static str {
    match k {
        Kind::Name => "NAME",
        Kind::Number => "NUMBER",
        Kind::String => "STRING",
        Kind::Op => "OP",
        Kind::Comment => "COMMENT",
        Kind::Nl => "NL",
        Kind::Newline => "NEWLINE",
        Kind::Indent => "INDENT",
        Kind::Dedent => "DEDENT",
        Kind::ErrorToken => "ERRORTOKEN",
        Kind::EndMarker => "ENDMARKER",
    }
}

fn ours(src: &str) -> Value {
    match generate_tokens(src) {
        Ok(toks) => json!({
            "tokens": toks
                .iter()
                .map(|t| json!([kind_name(t.kind), t.text, [t.start.0, t.start.1], [t.end.0, t.end.1]]))
                .collect::<Vec<_>>()
        }),
        Err(TokenizeError::EofInString { .. }) => json!({"error": "eof_string"}),
        Err(TokenizeError::EofInStatement { .. }) => json!({"error": "eof_statement"}),
        Err(TokenizeError::Dedent { .. }) => json!({"error": "dedent"}),
    }
}

#[test]
fn tokens_equal_cpython_tokenize() {
    let cases = cases();
    let mut child = Command::new(support::python())
        .args(["-c", REFERENCE])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run the Python reference (CODEMINE_PYTHON or .venv)");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(serde_json::to_string(&cases).unwrap().as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "reference failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let reference: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(reference.len(), cases.len());
    let mut errors = 0;
    for (src, want) in cases.iter().zip(&reference) {
        let got = ours(src);
        errors += usize::from(want.get("error").is_some());
        assert_eq!(&got, want, "source {src:?}");
    }
    // The generated set exercises both outcomes.
    assert!(errors > 20 && errors < cases.len() / 2, "{errors} errors");
}
