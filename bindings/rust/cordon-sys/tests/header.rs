//! src/lib.rs is written by hand from include/cordon.h: these tests read
//! both texts and fail when they differ (a function, a parameter's or
//! return type, a constant's value, a struct's fields), so the header
//! cannot change without the declarations, nor the other way round.
use std::collections::BTreeMap;
use std::fs;
use std::path::PathBuf;

fn texts() -> Option<(String, String)> {
    let me = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let header = me.join("../../../include/cordon.h");
    let header = match fs::read_to_string(&header) {
        Ok(h) => h,
        Err(_) => {
            // Only a crate inside a cordon checkout has the header beside it.
            println!("cordon-skip: no include/cordon.h three directories up: not in a cordon tree");
            return None;
        }
    };
    let rust = fs::read_to_string(me.join("src/lib.rs")).expect("src/lib.rs");
    Some((header, rust))
}

/// Comments out, whitespace folded.
fn strip_c(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(i) = rest.find("/*") {
        out.push_str(&rest[..i]);
        let end = rest[i..].find("*/").expect("unterminated comment") + i + 2;
        out.push(' ');
        rest = &rest[end..];
    }
    out.push_str(rest);
    out.lines().filter(|l| !l.trim_start().starts_with('#')).collect::<Vec<_>>().join(" ")
}

fn fold(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A C type as the Rust declaration spells it.
fn c_to_rust(t: &str) -> String {
    let t = fold(&t.replace('*', " * "));
    let t = t.replace("* const *", "*const*");
    let (base, ptrs) = {
        let stars: Vec<&str> = t.split(' ').filter(|w| w.starts_with('*')).collect();
        let words: Vec<&str> = t.split(' ').filter(|w| !w.starts_with('*')).collect();
        (words.join(" "), stars.join(" "))
    };
    let is_const = base.starts_with("const ");
    let base = base.trim_start_matches("const ").to_string();
    let rbase = match base.as_str() {
        "char" => "c_char",
        "int" => "c_int",
        "unsigned" => "c_uint",
        "long" => "c_long",
        "uint64_t" => "u64",
        "size_t" => "usize",
        "void" => "()",
        "cordon" => "cordon",
        "cordon_proc" => "cordon_proc",
        "struct cordon_result" => "cordon_result",
        "struct cordon_stdio" => "cordon_stdio",
        "struct cordon_change" => "cordon_change",
        "enum cordon_mode" => "cordon_mode",
        "enum cordon_network" => "cordon_network",
        "enum cordon_on_tamper" => "cordon_on_tamper",
        other => panic!("a C type the test does not know: {}", other),
    }
    .to_string();
    // Pointers from the innermost (next to the base type) outwards.
    let mut r = rbase;
    let mut first = true;
    for p in ptrs.split(' ').filter(|p| !p.is_empty()) {
        let n = p.matches('*').count();
        for k in 0..n {
            let inner_const = (first && is_const) || (p == "*const*" && k == 1);
            r = format!("*{} {}", if inner_const { "const" } else { "mut" }, r);
            first = false;
        }
    }
    r
}

/// name -> (return type, parameter types), from the header.
fn header_functions(header: &str) -> BTreeMap<String, (String, Vec<String>)> {
    let text = strip_c(header);
    let mut out = BTreeMap::new();
    for decl in text.split("CORDON_EXPORT").skip(1) {
        let decl = &decl[..decl.find(';').unwrap_or(decl.len())];
        if !decl.contains('(') {
            continue;
        }
        let open = decl.find('(').unwrap();
        let close = decl.rfind(')').unwrap();
        let head = decl[..open].trim();
        let name_at = head.rfind(|ch: char| !(ch.is_alphanumeric() || ch == '_')).unwrap() + 1;
        let name = head[name_at..].to_string();
        let ret = c_to_rust(&head[..name_at]);
        let mut params = Vec::new();
        let inner = decl[open + 1..close].trim();
        if inner != "void" {
            for p in inner.split(',') {
                let p = fold(p);
                // "const char *const argv[]" is a pointer to the first.
                let (p, array) = match p.strip_suffix("[]") {
                    Some(q) => (q.to_string(), true),
                    None => (p.clone(), false),
                };
                let at = p.rfind(|ch: char| !(ch.is_alphanumeric() || ch == '_')).unwrap() + 1;
                let mut ty = p[..at].to_string();
                if array {
                    ty.push('*');
                }
                params.push(c_to_rust(&ty));
            }
        }
        out.insert(name, (ret, params));
    }
    out
}

/// The same from the extern block of src/lib.rs.
fn rust_functions(rust: &str) -> BTreeMap<String, (String, Vec<String>)> {
    let block = &rust[rust.find("extern \"C\" {").expect("extern block")..];
    let text: String =
        block.lines().filter(|l| !l.trim_start().starts_with("//")).collect::<Vec<_>>().join(" ");
    let mut out = BTreeMap::new();
    for decl in text.split("pub fn ").skip(1) {
        let decl = &decl[..decl.find(';').unwrap()];
        let open = decl.find('(').unwrap();
        let close = decl.rfind(')').unwrap();
        let name = decl[..open].trim().to_string();
        if !name.starts_with("cordon_") {
            continue; // free(): libc's, for the strings the library returns
        }
        let ret = match decl[close + 1..].trim().strip_prefix("->") {
            Some(r) => fold(r),
            None => "()".to_string(),
        };
        let params = decl[open + 1..close]
            .split(',')
            .map(fold)
            .filter(|p| !p.is_empty())
            .map(|p| fold(&p[p.find(':').unwrap() + 1..]))
            .collect();
        out.insert(name, (ret, params));
    }
    out
}

#[test]
fn every_function_of_the_header_is_declared_with_its_types() {
    let (header, rust) = match texts() {
        Some(t) => t,
        None => return,
    };
    let h = header_functions(&header);
    let r = rust_functions(&rust);
    assert!(h.len() > 70, "the header's functions were not found ({})", h.len());
    for (name, sig) in &h {
        match r.get(name) {
            None => panic!("{} is in cordon.h but not declared in src/lib.rs", name),
            Some(rs) => assert_eq!(rs, sig, "{}: src/lib.rs differs from cordon.h", name),
        }
    }
    for name in r.keys() {
        assert!(h.contains_key(name), "{} is declared but not in cordon.h", name);
    }
}

/// NAME -> value of every CORDON_ constant: #defines and enumerators.
fn header_constants(header: &str) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for line in header.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        if words.len() >= 3 && words[0] == "#define" && words[1].starts_with("CORDON_") {
            if words[1] == "CORDON_EXPORT" || words[1] == "CORDON_H" {
                continue;
            }
            let v = words[2].trim_matches(|ch| ch == '(' || ch == ')');
            out.insert(words[1].to_string(), v.trim_end_matches('u').to_string());
        }
    }
    let text = strip_c(header);
    for body in text.split("enum cordon_").skip(1) {
        let (open, close) = match (body.find('{'), body.find('}')) {
            (Some(o), Some(c)) if o < c && !body[..o].contains(';') => (o, c),
            _ => continue,
        };
        let mut next = 0i64;
        for item in body[open + 1..close].split(',') {
            let item = fold(item);
            if item.is_empty() {
                continue;
            }
            let (name, value) = match item.split_once('=') {
                Some((n, v)) => (n.trim().to_string(), v.trim().parse::<i64>().unwrap()),
                None => (item.clone(), next),
            };
            out.insert(name, value.to_string());
            next = value + 1;
        }
    }
    out
}

fn rust_constants(rust: &str) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for line in rust.lines() {
        let line = line.trim();
        if let Some(rest) = line.strip_prefix("pub const ") {
            let name = rest[..rest.find(':').unwrap()].to_string();
            let value = rest[rest.find('=').unwrap() + 1..].trim().trim_end_matches(';');
            let value = if let Some(h) = value.strip_prefix("0x") {
                format!("0x{}", h)
            } else {
                value.to_string()
            };
            out.insert(name, value);
        }
    }
    out
}

fn same_value(a: &str, b: &str) -> bool {
    let num = |s: &str| -> Option<i64> {
        match s.strip_prefix("0x") {
            Some(h) => i64::from_str_radix(h, 16).ok(),
            None => s.parse().ok(),
        }
    };
    match (num(a), num(b)) {
        (Some(x), Some(y)) => x == y,
        _ => a == b,
    }
}

#[test]
fn every_constant_of_the_header_has_its_value() {
    let (header, rust) = match texts() {
        Some(t) => t,
        None => return,
    };
    let h = header_constants(&header);
    let r = rust_constants(&rust);
    assert!(h.len() > 40, "the header's constants were not found ({})", h.len());
    for (name, v) in &h {
        match r.get(name) {
            None => panic!("{} = {} is in cordon.h but not in src/lib.rs", name, v),
            Some(rv) => {
                assert!(same_value(rv, v), "{}: {} in src/lib.rs, {} in cordon.h", name, rv, v)
            }
        }
    }
    for name in r.keys() {
        assert!(h.contains_key(name), "{} is in src/lib.rs but not in cordon.h", name);
    }
}

/// The fields of a struct: "type name" per field, both sides in Rust's terms.
fn header_struct(header: &str, name: &str) -> Vec<String> {
    let text = strip_c(header);
    let at = text.find(&format!("struct {} {{", name)).expect("struct in the header");
    let body = &text[at..];
    let body = &body[body.find('{').unwrap() + 1..body.find('}').unwrap()];
    body.split(';')
        .map(fold)
        .filter(|f| !f.is_empty())
        .map(|f| {
            let (ty, field) = f.rsplit_once(' ').unwrap();
            match field.split_once('[') {
                Some((n, len)) => {
                    format!("{}: [{}; {}]", n, c_to_rust(ty), len.trim_end_matches(']'))
                }
                None => format!("{}: {}", field, c_to_rust(ty)),
            }
        })
        .collect()
}

fn rust_struct(rust: &str, name: &str) -> Vec<String> {
    let at = rust.find(&format!("pub struct {} {{", name)).expect("struct in src/lib.rs");
    let body = &rust[at..];
    let body = &body[body.find('{').unwrap() + 1..body.find('}').unwrap()];
    body.split(',')
        .map(fold)
        .filter(|f| !f.is_empty())
        .map(|f| f.trim_start_matches("pub ").to_string())
        .collect()
}

#[test]
fn the_structs_have_the_headers_fields_in_order() {
    let (header, rust) = match texts() {
        Some(t) => t,
        None => return,
    };
    for s in ["cordon_result", "cordon_stdio"] {
        assert_eq!(rust_struct(&rust, s), header_struct(&header, s), "struct {}", s);
    }
    assert_eq!(std::mem::size_of::<cordon_sys::cordon_result>(), 16);
    assert_eq!(std::mem::size_of::<cordon_sys::cordon_stdio>(), 24);
}

#[test]
fn the_library_linked_is_the_headers_version() {
    let v = unsafe { std::ffi::CStr::from_ptr(cordon_sys::cordon_version()) };
    assert_eq!(v.to_str().unwrap(), cordon_sys::CORDON_VERSION);
}
