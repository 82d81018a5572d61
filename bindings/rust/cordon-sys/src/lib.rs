//! Raw declarations of libcordon's C API, written by hand from
//! `include/cordon.h` (no bindgen): every function, constant and struct of
//! the header, with the same names and types. `tests/header.rs` compares
//! this file with the header, so neither can change alone.
//!
//! Everything here is `unsafe` to call and follows the header's rules:
//! strings are NUL-terminated and copied by the library; a `*const c_char`
//! it returns belongs to the handle (or is static), a `*mut c_char` is the
//! caller's to `free()`; fds passed in are borrowed; the message of
//! [`cordon_last_error`] is the calling thread's own. The safe API is the
//! `cordon` crate. How the library is found and linked: `build.rs`.
#![allow(non_camel_case_types)]

use std::os::raw::{c_char, c_int, c_long, c_longlong, c_uint};

pub const CORDON_VERSION: &str = "0.1.0";

/// Return codes: 0 is success.
pub const CORDON_EINVAL: c_int = -1;
pub const CORDON_ENOMEM: c_int = -2;
pub const CORDON_ESYS: c_int = -3;
pub const CORDON_ESTATE: c_int = -4;
pub const CORDON_EREFUSED: c_int = -5;
pub const CORDON_EUNAVAILABLE: c_int = -6;
pub const CORDON_ECONFINE: c_int = -7;
pub const CORDON_EEXEC: c_int = -8;
pub const CORDON_ETAMPERED: c_int = -9;
pub const CORDON_ECONFLICT: c_int = -10;

pub const CORDON_EVENT_STATUS: &str = "bash_sandbox_status";
pub const CORDON_EVENT_EXIT: &str = "bash_sandbox_exit";
pub const CORDON_REASON_UNAVAILABLE: &str = "bash_sandbox_unavailable";
pub const CORDON_REASON_OFF: &str = "sandbox_off";

/// `enum cordon_mode`
pub type cordon_mode = c_int;
pub const CORDON_MODE_AUTO: cordon_mode = 0;
pub const CORDON_MODE_REQUIRED: cordon_mode = 1;
pub const CORDON_MODE_OFF: cordon_mode = 2;

pub const CORDON_CACHE_CARGO: c_uint = 0x1;
pub const CORDON_CACHE_NPM: c_uint = 0x2;
pub const CORDON_CACHE_PIP: c_uint = 0x4;
pub const CORDON_CACHE_PLAYWRIGHT: c_uint = 0x8;
pub const CORDON_CACHE_GO: c_uint = 0x10;
pub const CORDON_CACHE_YARN: c_uint = 0x20;
pub const CORDON_CACHE_PNPM: c_uint = 0x40;
pub const CORDON_CACHE_BUN: c_uint = 0x80;
pub const CORDON_CACHE_DENO: c_uint = 0x100;
pub const CORDON_CACHE_GRADLE: c_uint = 0x200;
pub const CORDON_CACHE_MAVEN: c_uint = 0x400;
pub const CORDON_CACHE_COMPOSER: c_uint = 0x800;
pub const CORDON_CACHE_GEM: c_uint = 0x1000;
pub const CORDON_CACHE_CCACHE: c_uint = 0x2000;
pub const CORDON_CACHE_SCCACHE: c_uint = 0x4000;
pub const CORDON_CACHE_HUGGINGFACE: c_uint = 0x8000;
pub const CORDON_CACHE_DEFAULT: c_uint = 0x1f;
pub const CORDON_CACHE_ALL: c_uint = 0xffff;

/// `enum cordon_network`
pub type cordon_network = c_int;
pub const CORDON_NETWORK_ON: cordon_network = 0;
pub const CORDON_NETWORK_OFF: cordon_network = 1;
pub const CORDON_NETWORK_ALLOW: cordon_network = 2;

/// `enum cordon_on_tamper`
pub type cordon_on_tamper = c_int;
pub const CORDON_TAMPER_DEFAULT: cordon_on_tamper = 0;
pub const CORDON_TAMPER_NEUTRALISE: cordon_on_tamper = 1;
pub const CORDON_TAMPER_FAIL: cordon_on_tamper = 2;

/// `enum cordon_explain`
pub const CORDON_EXPLAIN_OFF: c_int = 0;
pub const CORDON_EXPLAIN_SHORT: c_int = 1;
pub const CORDON_EXPLAIN_FULL: c_int = 2;
pub const CORDON_REVIEW_EXPIRY_DAYS: c_int = 7;

/// `enum cordon_stdio_how`
pub const CORDON_STDIO_INHERIT: c_int = 0;
pub const CORDON_STDIO_FD: c_int = 1;
pub const CORDON_STDIO_PIPE: c_int = 2;
pub const CORDON_STDIO_NULL: c_int = 3;
pub const CORDON_STDIO_STDOUT: c_int = 4;

/// The opaque handle (`cordon`).
#[repr(C)]
pub struct cordon {
    _private: [u8; 0],
}

/// A started command (`cordon_proc`).
#[repr(C)]
pub struct cordon_proc {
    _private: [u8; 0],
}

/// `struct cordon_result`
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct cordon_result {
    pub exit_code: c_int,
    pub signal: c_int,
    pub timed_out: c_int,
    pub exec_errno: c_int,
}

/// `struct cordon_stdio`
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct cordon_stdio {
    pub how: [c_int; 3],
    pub fd: [c_int; 3],
}

/// `struct cordon_change`: one held change of a review run.
#[repr(C)]
#[derive(Debug)]
pub struct cordon_change {
    pub path: *mut c_char,
    pub kind: *const c_char,
    pub size: c_longlong,
}

extern "C" {
    pub fn cordon_version() -> *const c_char;
    pub fn cordon_identifiers() -> *const *const c_char;
    pub fn cordon_new() -> *mut cordon;
    pub fn cordon_free(c: *mut cordon);
    pub fn cordon_last_error(c: *const cordon) -> *const c_char;

    pub fn cordon_set_mode(c: *mut cordon, mode: cordon_mode) -> c_int;
    pub fn cordon_parse_mode(s: *const c_char, out: *mut cordon_mode) -> c_int;
    pub fn cordon_set_workspace(c: *mut cordon, dir: *const c_char) -> c_int;
    pub fn cordon_set_cwd(c: *mut cordon, dir: *const c_char) -> c_int;
    pub fn cordon_add_allow_write(c: *mut cordon, path: *const c_char) -> c_int;
    pub fn cordon_add_pass_file(c: *mut cordon, path: *const c_char) -> c_int;
    pub fn cordon_add_allow_socket(c: *mut cordon, path: *const c_char) -> c_int;
    pub fn cordon_add_deny_read(c: *mut cordon, path: *const c_char) -> c_int;
    pub fn cordon_add_allow_read(c: *mut cordon, path: *const c_char) -> c_int;
    pub fn cordon_default_deny_read() -> *const *const c_char;
    pub fn cordon_set_default_deny_read(c: *mut cordon, on: c_int) -> c_int;
    pub fn cordon_default_deny_env() -> *const *const c_char;
    pub fn cordon_set_network(c: *mut cordon, net: cordon_network) -> c_int;
    pub fn cordon_parse_network(s: *const c_char, out: *mut cordon_network) -> c_int;
    pub fn cordon_set_network_allow(c: *mut cordon, list: *const c_char) -> c_int;
    pub fn cordon_set_network_allow_file(c: *mut cordon, path: *const c_char) -> c_int;
    pub fn cordon_set_network_allow_local(c: *mut cordon, on: c_int) -> c_int;
    pub fn cordon_set_network_allow_http(c: *mut cordon, on: c_int) -> c_int;
    pub fn cordon_add_network_resolve(c: *mut cordon, name_eq_addr: *const c_char) -> c_int;
    pub fn cordon_set_caches(c: *mut cordon, mask: c_uint) -> c_int;
    pub fn cordon_parse_caches(list: *const c_char, out: *mut c_uint) -> c_int;
    pub fn cordon_add_protect(c: *mut cordon, path: *const c_char) -> c_int;
    pub fn cordon_set_default_protect(c: *mut cordon, on: c_int) -> c_int;
    pub fn cordon_add_allow_agent_config(c: *mut cordon, path: *const c_char) -> c_int;
    pub fn cordon_set_on_tamper(c: *mut cordon, how: cordon_on_tamper) -> c_int;
    pub fn cordon_parse_on_tamper(s: *const c_char, out: *mut cordon_on_tamper) -> c_int;
    pub fn cordon_set_state_dir(c: *mut cordon, dir: *const c_char) -> c_int;
    pub fn cordon_set_status_fd(c: *mut cordon, fd: c_int) -> c_int;
    pub fn cordon_set_status_file(c: *mut cordon, path: *const c_char) -> c_int;
    pub fn cordon_set_timeout_ms(c: *mut cordon, ms: u64) -> c_int;
    pub fn cordon_set_max_procs(c: *mut cordon, n: u64) -> c_int;
    pub fn cordon_set_max_memory(c: *mut cordon, bytes: u64) -> c_int;
    pub fn cordon_set_max_tmp(c: *mut cordon, bytes: u64) -> c_int;
    pub fn cordon_set_clean_env(c: *mut cordon, on: c_int) -> c_int;
    pub fn cordon_add_env(c: *mut cordon, spec: *const c_char) -> c_int;
    pub fn cordon_add_keep_fd(c: *mut cordon, fd: c_int) -> c_int;
    pub fn cordon_set_allow_broad(c: *mut cordon, on: c_int) -> c_int;
    pub fn cordon_set_foreground(c: *mut cordon, on: c_int) -> c_int;
    pub fn cordon_set_reap_all(c: *mut cordon, on: c_int) -> c_int;
    pub fn cordon_set_explain(c: *mut cordon, how: c_int) -> c_int;
    pub fn cordon_set_scratch_home(c: *mut cordon, on: c_int) -> c_int;
    pub fn cordon_set_allow_userns(c: *mut cordon, on: c_int) -> c_int;
    pub fn cordon_set_review(c: *mut cordon, on: c_int) -> c_int;

    pub fn cordon_set_option(c: *mut cordon, name: *const c_char, value: *const c_char) -> c_int;
    pub fn cordon_option_takes_value(name: *const c_char) -> c_int;
    pub fn cordon_load_policy(c: *mut cordon, path: *const c_char) -> c_int;
    pub fn cordon_use_profile(c: *mut cordon, name: *const c_char) -> c_int;
    pub fn cordon_profile_names() -> *const *const c_char;
    pub fn cordon_profile_text(name: *const c_char) -> *const c_char;
    pub fn cordon_use_agent_policy(c: *mut cordon) -> c_int;
    pub fn cordon_options_text(c: *const cordon) -> *mut c_char;

    pub fn cordon_probe(c: *mut cordon) -> c_int;
    pub fn cordon_begin(c: *mut cordon) -> c_int;
    pub fn cordon_spawn(
        c: *mut cordon,
        argv: *const *const c_char,
        out: *mut *mut cordon_proc,
    ) -> c_int;
    pub fn cordon_spawn_stdio(
        c: *mut cordon,
        argv: *const *const c_char,
        io: *mut cordon_stdio,
        out: *mut *mut cordon_proc,
    ) -> c_int;
    pub fn cordon_proc_pid(p: *const cordon_proc) -> c_long;
    pub fn cordon_proc_kill(p: *const cordon_proc, sig: c_int) -> c_int;
    pub fn cordon_wait(p: *mut cordon_proc, res: *mut cordon_result) -> c_int;
    pub fn cordon_end(c: *mut cordon) -> c_int;
    pub fn cordon_last_result(c: *mut cordon, out: *mut cordon_result) -> c_int;
    pub fn cordon_run(c: *mut cordon, argv: *const *const c_char, res: *mut cordon_result)
        -> c_int;

    pub fn cordon_applied(c: *const cordon) -> c_int;
    pub fn cordon_backend_name(c: *const cordon) -> *const c_char;
    pub fn cordon_reason(c: *const cordon) -> *const c_char;
    pub fn cordon_cause(c: *const cordon) -> *const c_char;
    pub fn cordon_reason_detail(c: *const cordon) -> *const c_char;
    pub fn cordon_abi(c: *const cordon) -> c_int;
    pub fn cordon_layers(c: *const cordon) -> *const *const c_char;
    pub fn cordon_gaps(c: *const cordon) -> *const *const c_char;
    pub fn cordon_tampered_count(c: *const cordon) -> usize;
    pub fn cordon_tampered_path(c: *const cordon, i: usize) -> *const c_char;
    pub fn cordon_tampered_moved(c: *const cordon, i: usize) -> *const c_char;
    pub fn cordon_tmpdir(c: *const cordon) -> *const c_char;
    pub fn cordon_status_json(c: *const cordon) -> *mut c_char;
    pub fn cordon_probe_json(c: *mut cordon) -> *mut c_char;
    pub fn cordon_reason_text(reason: *const c_char) -> *const c_char;
    pub fn cordon_run_id(c: *const cordon) -> *const c_char;
    pub fn cordon_changes(
        c: *mut cordon,
        run_id: *const c_char,
        out: *mut *mut cordon_change,
        n: *mut usize,
        workspace: *mut *mut c_char,
    ) -> c_int;
    pub fn cordon_changes_free(v: *mut cordon_change, n: usize);
    pub fn cordon_diff(c: *mut cordon, run_id: *const c_char, fd: c_int) -> c_int;
    pub fn cordon_apply(c: *mut cordon, run_id: *const c_char, drop_guarded: c_int) -> c_int;
    pub fn cordon_apply_refused_count(c: *const cordon) -> usize;
    pub fn cordon_apply_refused_path(c: *const cordon, i: usize) -> *const c_char;
    pub fn cordon_apply_refused_reason(c: *const cordon, i: usize) -> *const c_char;
    pub fn cordon_discard(c: *mut cordon, run_id: *const c_char) -> c_int;

    /// The C library's `free()`, for the strings returned as `char *`.
    pub fn free(p: *mut std::os::raw::c_void);
}
