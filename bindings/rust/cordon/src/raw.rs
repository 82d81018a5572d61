//! What the safe types share: the owned handle and the library's strings.
use std::ffi::{CStr, CString};
use std::os::raw::{c_char, c_int};
use std::ptr::NonNull;
use std::sync::{Mutex, MutexGuard};

use crate::{Error, ErrorCode, Result};
use cordon_sys as sys;

/// A static string of the library (identifiers, texts).
pub(crate) unsafe fn static_str(p: *const c_char) -> Option<&'static str> {
    if p.is_null() {
        None
    } else {
        CStr::from_ptr(p).to_str().ok()
    }
}

/// A static NULL-terminated list of the library.
pub(crate) unsafe fn static_list(mut p: *const *const c_char) -> Vec<&'static str> {
    let mut out = Vec::new();
    while !p.is_null() && !(*p).is_null() {
        if let Some(s) = static_str(*p) {
            out.push(s);
        }
        p = p.add(1);
    }
    out
}

/// A string the handle owns, copied (it may not outlive the next call).
pub(crate) unsafe fn owned_str(p: *const c_char) -> Option<String> {
    if p.is_null() {
        None
    } else {
        Some(CStr::from_ptr(p).to_string_lossy().into_owned())
    }
}

pub(crate) unsafe fn owned_list(mut p: *const *const c_char) -> Vec<String> {
    let mut out = Vec::new();
    while !p.is_null() && !(*p).is_null() {
        out.push(CStr::from_ptr(*p).to_string_lossy().into_owned());
        p = p.add(1);
    }
    out
}

/// A `char *` the caller frees.
pub(crate) unsafe fn taken_bytes(p: *mut c_char) -> Option<Vec<u8>> {
    if p.is_null() {
        return None;
    }
    let v = CStr::from_ptr(p).to_bytes().to_vec();
    sys::free(p as *mut _);
    Some(v)
}

pub(crate) fn c_string(what: &str, bytes: &[u8]) -> Result<CString> {
    CString::new(bytes)
        .map_err(|_| Error::new(ErrorCode::InvalidArgument, format!("{} holds a NUL byte", what)))
}

/// The owned handle. The library ties it to no thread: its last error is
/// the calling thread's, and every call here reads it right after the
/// failing call, in the same thread.
pub(crate) struct Handle(pub(crate) NonNull<sys::cordon>);

unsafe impl Send for Handle {}

impl Handle {
    pub(crate) fn ptr(&self) -> *mut sys::cordon {
        self.0.as_ptr()
    }

    /// 0, or the error of the call that returned r (its message read now).
    pub(crate) fn check(&self, r: c_int) -> Result<()> {
        if r == 0 {
            return Ok(());
        }
        let msg = unsafe { owned_str(sys::cordon_last_error(self.ptr())) }.unwrap_or_default();
        Err(Error::new(ErrorCode::from_raw(r), msg))
    }
}

/// A handle freed when dropped (a probe's, or a builder's cut short).
pub(crate) struct Owner(pub(crate) Handle);

impl Drop for Owner {
    fn drop(&mut self) {
        unsafe { sys::cordon_free(self.0.ptr()) }
    }
}

/// A lock whose holder may have panicked: what it guards stays usable.
pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}
