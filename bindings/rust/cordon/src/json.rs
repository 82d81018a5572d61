//! A small, strict JSON parser (RFC 8259) for cordon's status events, in
//! the standard library only.
//!
//! Strings are kept as bytes: cordon writes the bytes of a path that are
//! not valid UTF-8 as the escapes `\udc80`..`\udcff` (the CLI reference,
//! "Status events"), and [`Value::as_path`] turns them back into those
//! bytes, so a path read from an event is the path on disk. Any other
//! unpaired surrogate is an error, as are trailing bytes, a duplicate
//! member name and nesting deeper than [`MAX_DEPTH`].
use std::ffi::OsStr;
use std::fmt;
use std::os::unix::ffi::OsStrExt;
use std::path::PathBuf;

/// Arrays and objects nest at most this deep.
pub const MAX_DEPTH: usize = 64;

/// A JSON value. Numbers keep their text (a 64-bit integer loses nothing).
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Null,
    Bool(bool),
    Number(String),
    /// The string's bytes (UTF-8, or cordon's escaped bytes of a path).
    String(Vec<u8>),
    Array(Vec<Value>),
    /// Members in the order of the text.
    Object(Vec<(String, Value)>),
}

/// Why a text is not JSON, and where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    pub offset: usize,
    pub what: &'static str,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "not JSON at byte {}: {}", self.offset, self.what)
    }
}

impl std::error::Error for ParseError {}

/// Parses one JSON text (surrounding whitespace allowed).
pub fn parse(text: &[u8]) -> Result<Value, ParseError> {
    let mut p = Parser { s: text, i: 0 };
    p.ws();
    let v = p.value(0)?;
    p.ws();
    if p.i != p.s.len() {
        return Err(p.err("bytes after the value"));
    }
    Ok(v)
}

impl Value {
    /// The member `key` of an object.
    pub fn get(&self, key: &str) -> Option<&Value> {
        match self {
            Value::Object(m) => m.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }
    pub fn is_null(&self) -> bool {
        matches!(self, Value::Null)
    }
    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Value::Bool(b) => Some(*b),
            _ => None,
        }
    }
    pub fn as_i64(&self) -> Option<i64> {
        match self {
            Value::Number(n) => n.parse().ok(),
            _ => None,
        }
    }
    pub fn as_u64(&self) -> Option<u64> {
        match self {
            Value::Number(n) => n.parse().ok(),
            _ => None,
        }
    }
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Value::Number(n) => n.parse().ok(),
            _ => None,
        }
    }
    /// A string that is valid UTF-8 (identifiers, times, messages).
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(b) => std::str::from_utf8(b).ok(),
            _ => None,
        }
    }
    /// A string's bytes as they were before cordon escaped them.
    pub fn as_bytes(&self) -> Option<&[u8]> {
        match self {
            Value::String(b) => Some(b),
            _ => None,
        }
    }
    /// A string as a path (any bytes).
    pub fn as_path(&self) -> Option<PathBuf> {
        self.as_bytes().map(|b| PathBuf::from(OsStr::from_bytes(b)))
    }
    pub fn as_array(&self) -> Option<&[Value]> {
        match self {
            Value::Array(a) => Some(a),
            _ => None,
        }
    }
    pub fn as_object(&self) -> Option<&[(String, Value)]> {
        match self {
            Value::Object(m) => Some(m),
            _ => None,
        }
    }
}

struct Parser<'a> {
    s: &'a [u8],
    i: usize,
}

impl<'a> Parser<'a> {
    fn err(&self, what: &'static str) -> ParseError {
        ParseError { offset: self.i, what }
    }

    fn ws(&mut self) {
        while self.i < self.s.len() && matches!(self.s[self.i], b' ' | b'\t' | b'\n' | b'\r') {
            self.i += 1;
        }
    }

    fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }

    fn literal(&mut self, word: &'static [u8], v: Value) -> Result<Value, ParseError> {
        if self.s[self.i..].starts_with(word) {
            self.i += word.len();
            Ok(v)
        } else {
            Err(self.err("an unknown word"))
        }
    }

    fn value(&mut self, depth: usize) -> Result<Value, ParseError> {
        match self.peek() {
            None => Err(self.err("the text ends where a value should be")),
            Some(b'{') => self.object(depth + 1),
            Some(b'[') => self.array(depth + 1),
            Some(b'"') => Ok(Value::String(self.string()?)),
            Some(b't') => self.literal(b"true", Value::Bool(true)),
            Some(b'f') => self.literal(b"false", Value::Bool(false)),
            Some(b'n') => self.literal(b"null", Value::Null),
            Some(b'-') | Some(b'0'..=b'9') => self.number(),
            Some(_) => Err(self.err("not the start of a value")),
        }
    }

    fn digits(&mut self) -> usize {
        let start = self.i;
        while matches!(self.peek(), Some(b'0'..=b'9')) {
            self.i += 1;
        }
        self.i - start
    }

    fn number(&mut self) -> Result<Value, ParseError> {
        let start = self.i;
        if self.peek() == Some(b'-') {
            self.i += 1;
        }
        match self.peek() {
            Some(b'0') => self.i += 1,
            Some(b'1'..=b'9') => {
                self.digits();
            }
            _ => return Err(self.err("a number without digits")),
        }
        if self.peek() == Some(b'.') {
            self.i += 1;
            if self.digits() == 0 {
                return Err(self.err("no digits after the decimal point"));
            }
        }
        if matches!(self.peek(), Some(b'e') | Some(b'E')) {
            self.i += 1;
            if matches!(self.peek(), Some(b'+') | Some(b'-')) {
                self.i += 1;
            }
            if self.digits() == 0 {
                return Err(self.err("no digits in the exponent"));
            }
        }
        // Only ASCII was consumed.
        let text = std::str::from_utf8(&self.s[start..self.i]).unwrap_or("0");
        Ok(Value::Number(text.to_string()))
    }

    fn hex4(&mut self) -> Result<u32, ParseError> {
        let h = self.s.get(self.i..self.i + 4).ok_or_else(|| self.err("a short \\u escape"))?;
        let mut v = 0u32;
        for &b in h {
            let d = (b as char).to_digit(16).ok_or_else(|| self.err("a bad \\u escape"))?;
            v = v * 16 + d;
        }
        self.i += 4;
        Ok(v)
    }

    /// After "\u": one code point (a pair of surrogates joined), or
    /// cordon's escaped byte.
    fn unicode(&mut self, out: &mut Vec<u8>) -> Result<(), ParseError> {
        let u = self.hex4()?;
        let cp = if (0xd800..0xdc00).contains(&u) {
            if !self.s[self.i..].starts_with(b"\\u") {
                return Err(self.err("a high surrogate without its pair"));
            }
            self.i += 2;
            let lo = self.hex4()?;
            if !(0xdc00..0xe000).contains(&lo) {
                return Err(self.err("a high surrogate without its pair"));
            }
            0x10000 + ((u - 0xd800) << 10) + (lo - 0xdc00)
        } else if (0xdc80..0xdd00).contains(&u) {
            // A byte of a path that is not UTF-8 (0x80..0xff).
            out.push((u - 0xdc00) as u8);
            return Ok(());
        } else if (0xdc00..0xe000).contains(&u) {
            return Err(self.err("an unpaired low surrogate"));
        } else {
            u
        };
        let ch = char::from_u32(cp).ok_or_else(|| self.err("not a code point"))?;
        let mut buf = [0u8; 4];
        out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
        Ok(())
    }

    fn string(&mut self) -> Result<Vec<u8>, ParseError> {
        self.i += 1; // the opening quote
        let mut out = Vec::new();
        let start = self.i;
        loop {
            let b = match self.peek() {
                None => return Err(self.err("an unterminated string")),
                Some(b) => b,
            };
            self.i += 1;
            match b {
                b'"' => break,
                b'\\' => {
                    let e = self.peek().ok_or_else(|| self.err("an unterminated escape"))?;
                    self.i += 1;
                    match e {
                        b'"' => out.push(b'"'),
                        b'\\' => out.push(b'\\'),
                        b'/' => out.push(b'/'),
                        b'b' => out.push(8),
                        b'f' => out.push(12),
                        b'n' => out.push(b'\n'),
                        b'r' => out.push(b'\r'),
                        b't' => out.push(b'\t'),
                        b'u' => self.unicode(&mut out)?,
                        _ => return Err(self.err("an unknown escape")),
                    }
                }
                0..=0x1f => return Err(self.err("a control character in a string")),
                _ => out.push(b),
            }
        }
        // The raw bytes must be UTF-8 themselves (escapes aside).
        if std::str::from_utf8(&self.s[start..self.i - 1]).is_err() {
            return Err(ParseError { offset: start, what: "a string that is not UTF-8" });
        }
        Ok(out)
    }

    fn array(&mut self, depth: usize) -> Result<Value, ParseError> {
        if depth > MAX_DEPTH {
            return Err(self.err("nested too deep"));
        }
        self.i += 1;
        let mut items = Vec::new();
        self.ws();
        if self.peek() == Some(b']') {
            self.i += 1;
            return Ok(Value::Array(items));
        }
        loop {
            self.ws();
            items.push(self.value(depth)?);
            self.ws();
            match self.peek() {
                Some(b',') => self.i += 1,
                Some(b']') => {
                    self.i += 1;
                    return Ok(Value::Array(items));
                }
                _ => return Err(self.err("expected ',' or ']'")),
            }
        }
    }

    fn object(&mut self, depth: usize) -> Result<Value, ParseError> {
        if depth > MAX_DEPTH {
            return Err(self.err("nested too deep"));
        }
        self.i += 1;
        let mut members: Vec<(String, Value)> = Vec::new();
        self.ws();
        if self.peek() == Some(b'}') {
            self.i += 1;
            return Ok(Value::Object(members));
        }
        loop {
            self.ws();
            if self.peek() != Some(b'"') {
                return Err(self.err("expected a member name"));
            }
            let at = self.i;
            let key = String::from_utf8(self.string()?)
                .map_err(|_| ParseError { offset: at, what: "a member name that is not UTF-8" })?;
            if members.iter().any(|(k, _)| *k == key) {
                return Err(ParseError { offset: at, what: "a duplicate member name" });
            }
            self.ws();
            if self.peek() != Some(b':') {
                return Err(self.err("expected ':'"));
            }
            self.i += 1;
            self.ws();
            let v = self.value(depth)?;
            members.push((key, v));
            self.ws();
            match self.peek() {
                Some(b',') => self.i += 1,
                Some(b'}') => {
                    self.i += 1;
                    return Ok(Value::Object(members));
                }
                _ => return Err(self.err("expected ',' or '}'")),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(t: &str) -> Value {
        Value::String(t.as_bytes().to_vec())
    }

    #[test]
    fn values() {
        let v = parse(
            br#" {"a": [1, -2.5e3, true, false, null], "b": "x\"\\\/\n\u00e9\ud83d\ude00"} "#,
        )
        .unwrap();
        assert_eq!(v.get("a").unwrap().as_array().unwrap().len(), 5);
        assert_eq!(v.get("a").unwrap().as_array().unwrap()[1].as_f64(), Some(-2500.0));
        assert_eq!(v.get("b"), Some(&s("x\"\\/\n\u{e9}\u{1f600}")));
        assert_eq!(parse(b"18446744073709551615").unwrap().as_u64(), Some(u64::MAX));
        assert_eq!(parse(b"[]").unwrap(), Value::Array(vec![]));
        assert_eq!(parse(b"{}").unwrap(), Value::Object(vec![]));
    }

    #[test]
    fn escaped_path_bytes_come_back() {
        let v = parse(br#""/ws/a\udcffb\udc80""#).unwrap();
        assert_eq!(v.as_bytes().unwrap(), b"/ws/a\xffb\x80");
        assert_eq!(v.as_str(), None);
        assert_eq!(v.as_path().unwrap().as_os_str().as_bytes(), b"/ws/a\xffb\x80");
    }

    #[test]
    fn refusals() {
        for bad in [
            &b""[..],
            b"{",
            b"[1,]",
            b"{\"a\":1,}",
            b"{\"a\":1 \"b\":2}",
            b"01",
            b"1.",
            b"-",
            b"1e",
            b"\"\\x\"",
            b"\"\\ud800\"",
            b"\"\\udc00\"",
            b"\"\\udd00\"",
            b"\"a\nb\"",
            b"\"\xff\"",
            b"{\"a\":1,\"a\":2}",
            b"true false",
            b"nul",
            b"[1] x",
        ] {
            assert!(parse(bad).is_err(), "accepted {:?}", String::from_utf8_lossy(bad));
        }
        let deep = "[".repeat(MAX_DEPTH + 1) + &"]".repeat(MAX_DEPTH + 1);
        assert_eq!(parse(deep.as_bytes()).unwrap_err().what, "nested too deep");
        let ok = "[".repeat(MAX_DEPTH) + &"]".repeat(MAX_DEPTH);
        assert!(parse(ok.as_bytes()).is_ok());
    }
}
