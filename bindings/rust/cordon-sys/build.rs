//! Finds libcordon and tells cargo how to link it. In this order:
//!
//! 1. `CORDON_LIB_DIR=DIR`: the library in DIR (an install's `lib`, or a
//!    build directory): `libcordon.a` when it is there, else
//!    `libcordon.so`.
//! 2. The cordon tree these bindings live in (`bindings/rust` of a
//!    checkout): its `build/libcordon.a` (`CORDON_BUILD` names another
//!    build directory of the tree, e.g. `build-asan` is not one: its
//!    objects need the sanitizer runtime). Run `make` there first.
//!    `CORDON_USE_PKG_CONFIG=1` skips this step.
//! 3. `pkg-config cordon` (an install: `make install PREFIX=...`, with
//!    `PKG_CONFIG_PATH` naming its `lib/pkgconfig` when the prefix is not
//!    the system's): the `libcordon.a` of its `libdir` when there, else
//!    `-lcordon` from its `Libs`.
//!
//! `CORDON_LINK=static` or `dylib` forces the kind. The archive is the
//! default: a program linked with it needs nothing at run time, whereas
//! one linked with `libcordon.so` from a prefix the loader does not search
//! fails to start unless `LD_LIBRARY_PATH` or an rpath names it (a build
//! script of a library cannot give its dependents an rpath).
use std::env;
use std::path::{Path, PathBuf};
use std::process::Command;

#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Static,
    Dylib,
}

fn main() {
    for v in [
        "CORDON_LIB_DIR",
        "CORDON_LINK",
        "CORDON_USE_PKG_CONFIG",
        "CORDON_BUILD",
        "PKG_CONFIG",
        "PKG_CONFIG_PATH",
    ] {
        println!("cargo:rerun-if-env-changed={}", v);
    }
    let forced = match env::var("CORDON_LINK").ok().as_deref() {
        None | Some("") => None,
        Some("static") => Some(Kind::Static),
        Some("dylib") => Some(Kind::Dylib),
        Some(other) => fail(&format!("CORDON_LINK={} (want static or dylib)", other)),
    };
    if let Some(dir) = env::var_os("CORDON_LIB_DIR").filter(|d| !d.is_empty()) {
        let dir = PathBuf::from(dir);
        link_dir(&dir, forced, "CORDON_LIB_DIR");
        return;
    }
    if env::var("CORDON_USE_PKG_CONFIG").ok().as_deref() != Some("1") {
        if let Some(top) = tree_top() {
            let build = env::var("CORDON_BUILD").unwrap_or_else(|_| "build".to_string());
            let dir = top.join(&build);
            if !dir.join("libcordon.a").is_file() && !dir.join("libcordon.so").is_file() {
                fail(&format!(
                    "these bindings are in the cordon tree {}, but {} holds no libcordon.a: \
                     run `make` there first (or set CORDON_LIB_DIR, or CORDON_USE_PKG_CONFIG=1 \
                     to use an install)",
                    top.display(),
                    dir.display()
                ));
            }
            println!("cargo:include={}", top.join("include").display());
            link_dir(&dir, forced, "the tree's build");
            return;
        }
    }
    pkg_config(forced);
}

/// The checkout these bindings are part of: two directories above this
/// crate's, when it holds include/cordon.h.
fn tree_top() -> Option<PathBuf> {
    let me = PathBuf::from(env::var_os("CARGO_MANIFEST_DIR")?);
    let top = me.parent()?.parent()?.parent()?.to_path_buf();
    if top.join("include/cordon.h").is_file() {
        Some(top)
    } else {
        None
    }
}

fn link_dir(dir: &Path, forced: Option<Kind>, from: &str) {
    let archive = dir.join("libcordon.a");
    let shared = dir.join("libcordon.so");
    let kind = match forced {
        Some(k) => k,
        None if archive.is_file() => Kind::Static,
        None => Kind::Dylib,
    };
    let file = if kind == Kind::Static { &archive } else { &shared };
    if !file.exists() {
        fail(&format!("{} ({}) has no {}", dir.display(), from, file.display()));
    }
    println!("cargo:rerun-if-changed={}", file.display());
    println!("cargo:rustc-link-search=native={}", dir.display());
    emit(kind, dir);
}

fn emit(kind: Kind, dir: &Path) {
    match kind {
        Kind::Static => {
            println!("cargo:rustc-link-lib=static=cordon");
            println!("cargo:rustc-link-lib=pthread");
        }
        Kind::Dylib => {
            println!("cargo:rustc-link-lib=dylib=cordon");
            println!(
                "cargo:warning=cordon-sys links libcordon.so of {}: a program built with it \
                 finds it at run time only in the loader's directories, LD_LIBRARY_PATH or an \
                 rpath (CORDON_LINK=static avoids that)",
                dir.display()
            );
        }
    }
    println!("cargo:lib_dir={}", dir.display());
}

fn pkg_config(forced: Option<Kind>) {
    let prog = env::var("PKG_CONFIG").unwrap_or_else(|_| "pkg-config".to_string());
    let ask = |args: &[&str]| -> Option<String> {
        let out = Command::new(&prog).args(args).arg("cordon").output().ok()?;
        if !out.status.success() {
            return None;
        }
        Some(String::from_utf8_lossy(&out.stdout).trim().to_string())
    };
    let libdir = match ask(&["--variable=libdir"]) {
        Some(d) if !d.is_empty() => PathBuf::from(d),
        _ => fail(&format!(
            "libcordon not found: not in a built cordon tree, no CORDON_LIB_DIR, and `{} \
             cordon` found no install (make install PREFIX=..., then PKG_CONFIG_PATH=PREFIX/lib/pkgconfig)",
            prog
        )),
    };
    if let Some(inc) = ask(&["--variable=includedir"]) {
        println!("cargo:include={}", inc);
    }
    let archive = libdir.join("libcordon.a");
    if forced != Some(Kind::Dylib) && archive.is_file() {
        println!("cargo:rerun-if-changed={}", archive.display());
        println!("cargo:rustc-link-search=native={}", libdir.display());
        emit(Kind::Static, &libdir);
        return;
    }
    if forced == Some(Kind::Static) {
        fail(&format!("CORDON_LINK=static, but {} does not exist", archive.display()));
    }
    let libs = ask(&["--libs"]).unwrap_or_default();
    for word in libs.split_whitespace() {
        if let Some(d) = word.strip_prefix("-L") {
            println!("cargo:rustc-link-search=native={}", d);
        }
    }
    emit(Kind::Dylib, &libdir);
}

fn fail(msg: &str) -> ! {
    eprintln!("cordon-sys: {}", msg);
    std::process::exit(1);
}
