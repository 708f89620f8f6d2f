//! A strict, float-free JSON reader and a small JSON writer.
//!
//! Numbers keep their source text and are converted to u64 only where a field
//! asks for one, so the contract never carries floating-point code (a common
//! portability and determinism concern on chains). The reader rejects what
//! RFC 8259 rejects, duplicate object keys, and nesting deeper than MAX_DEPTH.

use std::borrow::Cow;
use std::string::String;
use std::vec::Vec;

/// Deep enough for every message this contract accepts, shallow enough that
/// recursion cannot exhaust the Wasm stack.
const MAX_DEPTH: usize = 16;

/// Longest piece of caller input echoed back inside an error message.
const SNIPPET_LEN: usize = 80;

#[cfg_attr(test, derive(Debug))]
pub enum Value<'a> {
    Null,
    Bool(bool),
    /// The number exactly as written (already checked against the grammar).
    Number(&'a str),
    String(Cow<'a, str>),
    Array(Vec<Value<'a>>),
    Object(Vec<(Cow<'a, str>, Value<'a>)>),
}

impl<'a> Value<'a> {
    /// A short name of the value's JSON type, for error messages.
    pub fn kind(&self) -> &'static str {
        match self {
            Value::Null => "null",
            Value::Bool(_) => "a boolean",
            Value::Number(_) => "a number",
            Value::String(_) => "a string",
            Value::Array(_) => "an array",
            Value::Object(_) => "an object",
        }
    }
}

/// Parses one complete JSON document.
pub fn parse(input: &[u8]) -> Result<Value<'_>, String> {
    let text = match core::str::from_utf8(input) {
        Ok(t) => t,
        Err(e) => {
            let mut m = String::from("invalid JSON: not UTF-8 at byte ");
            m.push_str(&u64_str(e.valid_up_to() as u64));
            return Err(m);
        }
    };
    let mut p = Parser {
        src: text,
        s: text.as_bytes(),
        pos: 0,
        depth: 0,
    };
    p.skip_ws();
    let v = p.value()?;
    p.skip_ws();
    if p.pos != p.s.len() {
        return Err(p.err("unexpected data after the JSON value"));
    }
    Ok(v)
}

struct Parser<'a> {
    src: &'a str,
    s: &'a [u8],
    pos: usize,
    depth: usize,
}

impl<'a> Parser<'a> {
    fn err(&self, what: &str) -> String {
        let mut m = String::from("invalid JSON at byte ");
        m.push_str(&u64_str(self.pos as u64));
        m.push_str(": ");
        m.push_str(what);
        m
    }

    fn peek(&self) -> Option<u8> {
        self.s.get(self.pos).copied()
    }

    fn skip_ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.peek() {
            self.pos += 1;
        }
    }

    fn expect(&mut self, b: u8, what: &str) -> Result<(), String> {
        if self.peek() == Some(b) {
            self.pos += 1;
            Ok(())
        } else {
            Err(self.err(what))
        }
    }

    fn value(&mut self) -> Result<Value<'a>, String> {
        match self.peek() {
            Some(b'{') => self.object(),
            Some(b'[') => self.array(),
            Some(b'"') => Ok(Value::String(self.string()?)),
            Some(b't') => self.literal("true", Value::Bool(true)),
            Some(b'f') => self.literal("false", Value::Bool(false)),
            Some(b'n') => self.literal("null", Value::Null),
            Some(b'-' | b'0'..=b'9') => self.number(),
            Some(_) => Err(self.err("expected a JSON value")),
            None => Err(self.err("unexpected end of input")),
        }
    }

    fn literal(&mut self, word: &str, v: Value<'a>) -> Result<Value<'a>, String> {
        let end = self.pos + word.len();
        if self.s.get(self.pos..end) == Some(word.as_bytes()) {
            self.pos = end;
            Ok(v)
        } else {
            Err(self.err("expected a JSON value"))
        }
    }

    fn enter(&mut self) -> Result<(), String> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.err("nested too deeply"));
        }
        self.pos += 1;
        Ok(())
    }

    fn object(&mut self) -> Result<Value<'a>, String> {
        self.enter()?;
        let mut items: Vec<(Cow<'a, str>, Value<'a>)> = Vec::new();
        self.skip_ws();
        if self.peek() == Some(b'}') {
            self.pos += 1;
            self.depth -= 1;
            return Ok(Value::Object(items));
        }
        loop {
            self.skip_ws();
            if self.peek() != Some(b'"') {
                return Err(self.err("expected a string key"));
            }
            let key_at = self.pos;
            let key = self.string()?;
            if items.iter().any(|(k, _)| *k == key) {
                self.pos = key_at;
                let mut m = String::from("duplicate key ");
                m.push_str(&quote(&key));
                return Err(self.err(&m));
            }
            self.skip_ws();
            self.expect(b':', "expected ':' after an object key")?;
            self.skip_ws();
            let v = self.value()?;
            items.push((key, v));
            self.skip_ws();
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b'}') => {
                    self.pos += 1;
                    self.depth -= 1;
                    return Ok(Value::Object(items));
                }
                _ => return Err(self.err("expected ',' or '}' in an object")),
            }
        }
    }

    fn array(&mut self) -> Result<Value<'a>, String> {
        self.enter()?;
        let mut items = Vec::new();
        self.skip_ws();
        if self.peek() == Some(b']') {
            self.pos += 1;
            self.depth -= 1;
            return Ok(Value::Array(items));
        }
        loop {
            self.skip_ws();
            items.push(self.value()?);
            self.skip_ws();
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b']') => {
                    self.pos += 1;
                    self.depth -= 1;
                    return Ok(Value::Array(items));
                }
                _ => return Err(self.err("expected ',' or ']' in an array")),
            }
        }
    }

    /// Reads a string starting at the opening quote. Strings without escapes
    /// borrow the input; the input is valid UTF-8 and every cut falls on an
    /// ASCII byte, so the slices are valid str.
    fn string(&mut self) -> Result<Cow<'a, str>, String> {
        self.pos += 1;
        let start = self.pos;
        let mut owned: Option<String> = None;
        let mut run = start;
        loop {
            match self.peek() {
                None => return Err(self.err("unterminated string")),
                Some(b'"') => {
                    let tail = self.src.get(run..self.pos).unwrap_or("");
                    self.pos += 1;
                    return Ok(match owned {
                        None => Cow::Borrowed(tail),
                        Some(mut s) => {
                            s.push_str(tail);
                            Cow::Owned(s)
                        }
                    });
                }
                Some(b'\\') => {
                    let buf = owned.get_or_insert_with(String::new);
                    buf.push_str(self.src.get(run..self.pos).unwrap_or(""));
                    self.pos += 1;
                    let c = self.escape()?;
                    if let Some(buf) = owned.as_mut() {
                        buf.push(c);
                    }
                    run = self.pos;
                }
                Some(b) if b < 0x20 => {
                    return Err(self.err("control character in a string"));
                }
                Some(_) => self.pos += 1,
            }
        }
    }

    /// Decodes the escape after a backslash.
    fn escape(&mut self) -> Result<char, String> {
        let b = match self.peek() {
            Some(b) => b,
            None => return Err(self.err("unterminated string")),
        };
        self.pos += 1;
        let c = match b {
            b'"' => '"',
            b'\\' => '\\',
            b'/' => '/',
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            b'u' => {
                let hi = self.hex4()?;
                let code = if (0xD800..0xDC00).contains(&hi) {
                    if self.s.get(self.pos..self.pos + 2) != Some(b"\\u".as_slice()) {
                        return Err(self.err("unpaired surrogate in \\u escape"));
                    }
                    self.pos += 2;
                    let lo = self.hex4()?;
                    if !(0xDC00..0xE000).contains(&lo) {
                        return Err(self.err("unpaired surrogate in \\u escape"));
                    }
                    0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00)
                } else {
                    hi
                };
                match char::from_u32(code) {
                    Some(c) => c,
                    None => return Err(self.err("unpaired surrogate in \\u escape")),
                }
            }
            _ => return Err(self.err("invalid escape in a string")),
        };
        Ok(c)
    }

    fn hex4(&mut self) -> Result<u32, String> {
        let mut v: u32 = 0;
        for _ in 0..4 {
            let d = match self.peek() {
                Some(c @ b'0'..=b'9') => c - b'0',
                Some(c @ b'a'..=b'f') => c - b'a' + 10,
                Some(c @ b'A'..=b'F') => c - b'A' + 10,
                _ => return Err(self.err("expected four hex digits after \\u")),
            };
            v = v * 16 + d as u32;
            self.pos += 1;
        }
        Ok(v)
    }

    fn digits(&mut self) -> usize {
        let from = self.pos;
        while let Some(b'0'..=b'9') = self.peek() {
            self.pos += 1;
        }
        self.pos - from
    }

    fn number(&mut self) -> Result<Value<'a>, String> {
        let start = self.pos;
        if self.peek() == Some(b'-') {
            self.pos += 1;
        }
        match self.peek() {
            Some(b'0') => self.pos += 1,
            Some(b'1'..=b'9') => {
                self.digits();
            }
            _ => return Err(self.err("expected a digit")),
        }
        if self.peek() == Some(b'.') {
            self.pos += 1;
            if self.digits() == 0 {
                return Err(self.err("expected a digit after '.'"));
            }
        }
        if let Some(b'e' | b'E') = self.peek() {
            self.pos += 1;
            if let Some(b'+' | b'-') = self.peek() {
                self.pos += 1;
            }
            if self.digits() == 0 {
                return Err(self.err("expected a digit in the exponent"));
            }
        }
        Ok(Value::Number(self.src.get(start..self.pos).unwrap_or("")))
    }
}

/// Reads `v` as an unsigned 64-bit integer written as a plain JSON number
/// (the encoding the official contract's u64 fields use).
pub fn as_u64(v: &Value, name: &str) -> Result<u64, String> {
    let text = match v {
        Value::Number(t) => *t,
        other => return Err(type_err(name, "an unsigned integer", other)),
    };
    if text.starts_with('-') {
        return Err(field_err(name, "must not be negative"));
    }
    if text.bytes().any(|b| !b.is_ascii_digit()) {
        return Err(field_err(name, "must be a whole number (no fraction or exponent)"));
    }
    let mut n: u64 = 0;
    for b in text.bytes() {
        n = match n.checked_mul(10).and_then(|n| n.checked_add((b - b'0') as u64)) {
            Some(n) => n,
            None => return Err(field_err(name, "is larger than the u64 maximum 18446744073709551615")),
        };
    }
    Ok(n)
}

/// Reads `v` as a string.
pub fn as_str<'v>(v: &'v Value, name: &str) -> Result<&'v str, String> {
    match v {
        Value::String(s) => Ok(s),
        other => Err(type_err(name, "a string", other)),
    }
}

/// Reads `v` as an array.
pub fn as_array<'v, 'a>(v: &'v Value<'a>, name: &str) -> Result<&'v [Value<'a>], String> {
    match v {
        Value::Array(items) => Ok(items),
        other => Err(type_err(name, "an array", other)),
    }
}

/// Looks up the fields `names` of the object `v`, rejecting any other key so
/// that a misspelt field is reported instead of silently ignored.
pub fn fields<'v, 'a, const N: usize>(
    v: &'v Value<'a>,
    ctx: &str,
    names: [&str; N],
) -> Result<[Option<&'v Value<'a>>; N], String> {
    let items = match v {
        Value::Object(items) => items,
        other => return Err(type_err(ctx, "an object", other)),
    };
    let mut found: [Option<&'v Value<'a>>; N] = [None; N];
    for (key, val) in items {
        match names.iter().position(|n| *n == key.as_ref()) {
            Some(i) => found[i] = Some(val),
            None => {
                let mut m = String::from(ctx);
                m.push_str(": unknown field ");
                m.push_str(&quote(key));
                m.push_str(", expected ");
                push_list(&mut m, &names);
                return Err(m);
            }
        }
    }
    Ok(found)
}

/// The value of field `name` of object `v`, ignoring other keys (for data the
/// host writes, which may grow new fields).
pub fn field<'v, 'a>(v: &'v Value<'a>, name: &str) -> Option<&'v Value<'a>> {
    match v {
        Value::Object(items) => items.iter().find(|(k, _)| k == name).map(|(_, v)| v),
        _ => None,
    }
}

/// A required field looked up by `fields`.
pub fn required<'v, 'a>(v: Option<&'v Value<'a>>, ctx: &str, name: &str) -> Result<&'v Value<'a>, String> {
    match v {
        Some(v) => Ok(v),
        None => {
            let mut m = String::from(ctx);
            m.push_str(": missing field `");
            m.push_str(name);
            m.push('`');
            Err(m)
        }
    }
}

pub fn push_list(m: &mut String, names: &[&str]) {
    for (i, n) in names.iter().enumerate() {
        if i > 0 {
            m.push_str(", ");
        }
        m.push_str(n);
    }
}

fn type_err(name: &str, want: &str, got: &Value) -> String {
    let mut m = String::from(name);
    m.push_str(": expected ");
    m.push_str(want);
    m.push_str(", got ");
    m.push_str(got.kind());
    m
}

fn field_err(name: &str, what: &str) -> String {
    let mut m = String::from(name);
    m.push(' ');
    m.push_str(what);
    m
}

/// `s` as a JSON string literal, cut to SNIPPET_LEN bytes, for echoing caller
/// input inside error messages.
pub fn quote(s: &str) -> String {
    let mut cut = s.len().min(SNIPPET_LEN);
    while !s.is_char_boundary(cut) {
        cut -= 1;
    }
    let mut w = Writer::new();
    w.string(s.get(..cut).unwrap_or(""));
    let mut out = String::from_utf8(w.into_bytes()).unwrap_or_default();
    if cut < s.len() {
        out.push_str("...");
    }
    out
}

/// Decimal text of `n`.
pub fn u64_str(n: u64) -> String {
    let mut w = Writer::new();
    w.u64(n);
    String::from_utf8(w.into_bytes()).unwrap_or_default()
}

/// Builds JSON text; callers emit structure with `raw` and escaped data with
/// `string` and `u64`.
pub struct Writer {
    buf: Vec<u8>,
}

impl Writer {
    pub fn new() -> Writer {
        Writer { buf: Vec::new() }
    }

    pub fn with_capacity(n: usize) -> Writer {
        Writer {
            buf: Vec::with_capacity(n),
        }
    }

    pub fn raw(&mut self, s: &str) {
        self.buf.extend_from_slice(s.as_bytes());
    }

    pub fn u64(&mut self, mut n: u64) {
        let mut tmp = [0u8; 20];
        let mut i = tmp.len();
        loop {
            i -= 1;
            tmp[i] = b'0' + (n % 10) as u8;
            n /= 10;
            if n == 0 {
                break;
            }
        }
        self.buf.extend_from_slice(&tmp[i..]);
    }

    pub fn bool(&mut self, b: bool) {
        self.raw(if b { "true" } else { "false" });
    }

    /// A quoted, escaped JSON string.
    pub fn string(&mut self, s: &str) {
        const HEX: &[u8; 16] = b"0123456789abcdef";
        self.buf.push(b'"');
        for &b in s.as_bytes() {
            match b {
                b'"' => self.buf.extend_from_slice(b"\\\""),
                b'\\' => self.buf.extend_from_slice(b"\\\\"),
                b'\n' => self.buf.extend_from_slice(b"\\n"),
                b'\r' => self.buf.extend_from_slice(b"\\r"),
                b'\t' => self.buf.extend_from_slice(b"\\t"),
                0..=0x1f => {
                    self.buf.extend_from_slice(b"\\u00");
                    self.buf.push(HEX[(b >> 4) as usize]);
                    self.buf.push(HEX[(b & 15) as usize]);
                }
                _ => self.buf.push(b),
            }
        }
        self.buf.push(b'"');
    }

    /// A JSON string holding the standard base64 (with padding) of `data`,
    /// the encoding CosmWasm uses for Binary.
    pub fn base64(&mut self, data: &[u8]) {
        const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        self.buf.reserve(data.len() / 3 * 4 + 6);
        self.buf.push(b'"');
        for chunk in data.chunks(3) {
            let b0 = chunk[0] as u32;
            let b1 = chunk.get(1).copied().unwrap_or(0) as u32;
            let b2 = chunk.get(2).copied().unwrap_or(0) as u32;
            let n = (b0 << 16) | (b1 << 8) | b2;
            self.buf.push(ALPHABET[(n >> 18) as usize & 63]);
            self.buf.push(ALPHABET[(n >> 12) as usize & 63]);
            self.buf
                .push(if chunk.len() > 1 { ALPHABET[(n >> 6) as usize & 63] } else { b'=' });
            self.buf
                .push(if chunk.len() > 2 { ALPHABET[n as usize & 63] } else { b'=' });
        }
        self.buf.push(b'"');
    }

    pub fn into_bytes(self) -> Vec<u8> {
        self.buf
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(w: Writer) -> String {
        String::from_utf8(w.into_bytes()).unwrap()
    }

    #[test]
    fn parses_nested_documents() {
        let v = parse(br#" {"a":[1,"x\u00e9\n",true,null,{"b":-0.5e3}], "c":"\ud83d\ude00"} "#).unwrap();
        let [a, c] = fields(&v, "doc", ["a", "c"]).unwrap();
        let a = as_array(a.unwrap(), "a").unwrap();
        assert_eq!(as_u64(&a[0], "a[0]").unwrap(), 1);
        assert_eq!(as_str(&a[1], "a[1]").unwrap(), "x\u{e9}\n");
        assert!(matches!(a[2], Value::Bool(true)));
        assert!(matches!(a[3], Value::Null));
        assert!(matches!(field(&a[4], "b"), Some(Value::Number("-0.5e3"))));
        assert_eq!(as_str(c.unwrap(), "c").unwrap(), "\u{1F600}");
    }

    #[test]
    fn rejects_malformed_documents() {
        let cases: &[(&[u8], &str)] = &[
            (b"", "unexpected end of input"),
            (b"{", "expected a string key"),
            (b"{\"a\" 1}", "expected ':'"),
            (b"{\"a\":1,}", "expected a string key"),
            (b"[1,]", "expected a JSON value"),
            (b"[1 2]", "expected ',' or ']'"),
            (b"{\"a\":1,\"a\":2}", "duplicate key \"a\""),
            (b"01", "unexpected data after the JSON value"),
            (b"1.", "expected a digit after '.'"),
            (b"1e", "expected a digit in the exponent"),
            (b"-", "expected a digit"),
            (b"\"abc", "unterminated string"),
            (b"\"a\x01\"", "control character"),
            (b"\"\\x\"", "invalid escape"),
            (b"\"\\ud800\"", "unpaired surrogate"),
            (b"\"\\udc00\"", "unpaired surrogate"),
            (b"\"\\u12g4\"", "four hex digits"),
            (b"tru", "expected a JSON value"),
            (b"\xff", "not UTF-8"),
            (b"[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]", "nested too deeply"),
            (b"{} {}", "unexpected data"),
        ];
        for (input, want) in cases {
            let err = match parse(input) {
                Ok(_) => panic!("{:?} parsed", input),
                Err(e) => e,
            };
            assert!(err.contains(want), "{:?}: got {:?}, want {:?}", input, err, want);
        }
    }

    #[test]
    fn reads_u64_strictly() {
        let ok = [("0", 0u64), ("42", 42), ("18446744073709551615", u64::MAX)];
        for (t, want) in ok {
            assert_eq!(as_u64(&Value::Number(t), "n").unwrap(), want);
        }
        let bad = [
            ("18446744073709551616", "larger than"),
            ("-1", "negative"),
            ("1.0", "whole number"),
            ("1e3", "whole number"),
        ];
        for (t, want) in bad {
            let err = as_u64(&Value::Number(t), "n").unwrap_err();
            assert!(err.contains(want), "{}: {}", t, err);
        }
        let err = as_u64(&Value::String(Cow::Borrowed("5")), "stage").unwrap_err();
        assert_eq!(err, "stage: expected an unsigned integer, got a string");
    }

    #[test]
    fn fields_rejects_unknown_keys() {
        let v = parse(br#"{"stage":1,"stag":2}"#).unwrap();
        let err = fields(&v, "finalize_stage", ["stage"]).unwrap_err();
        assert_eq!(err, "finalize_stage: unknown field \"stag\", expected stage");
        let v = parse(br#"{}"#).unwrap();
        let [s] = fields(&v, "finalize_stage", ["stage"]).unwrap();
        assert_eq!(required(s, "finalize_stage", "stage").unwrap_err(), "finalize_stage: missing field `stage`");
        let err = fields(&Value::Null, "msg", ["a"]).unwrap_err();
        assert_eq!(err, "msg: expected an object, got null");
    }

    #[test]
    fn writes_escaped_strings_numbers_and_base64() {
        let mut w = Writer::new();
        w.string("a\"b\\c\n\u{1}é");
        w.raw(",");
        w.u64(0);
        w.raw(",");
        w.u64(u64::MAX);
        assert_eq!(text(w), "\"a\\\"b\\\\c\\n\\u0001é\",0,18446744073709551615");
        for (input, want) in [("", ""), ("f", "Zg=="), ("fo", "Zm8="), ("foo", "Zm9v"), ("foob", "Zm9vYg==")] {
            let mut w = Writer::new();
            w.base64(input.as_bytes());
            assert_eq!(text(w), format!("\"{}\"", want));
        }
        assert_eq!(quote(&"x".repeat(100)), format!("\"{}\"...", "x".repeat(80)));
    }
}
