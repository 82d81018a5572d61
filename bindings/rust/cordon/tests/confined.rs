//! Real commands run confined through the bindings. Every security check
//! looks at the outside world (the file outside unchanged, the secret not
//! in the output, the listener never reached), each beside a control that
//! shows the same action succeeds unconfined. Each test has its own temp
//! dir (workspace, outside, state dir) and removes it.
//!
//! Where confinement cannot be applied here (a `required` run refused) a
//! test prints `cordon-skip: NAME: REASON` and returns; with
//! CORDON_MUST_WORK=1 it fails instead (tests/bindings/run reports the
//! skips as TAP `# SKIP` lines).
use cordon::{Builder, Command, ErrorCode, Event, Mode, Network, Run, Stdio};
use std::fs;
use std::io::{Read, Write};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::io::AsFd;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

/// A directory of the test's own under the temp dir, removed when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> TempDir {
        static N: AtomicUsize = AtomicUsize::new(0);
        let base = std::env::temp_dir();
        let d = base.join(format!(
            "cordon-rs.{}.{}.{}",
            name,
            std::process::id(),
            N.fetch_add(1, Ordering::SeqCst)
        ));
        fs::create_dir(&d).expect("the test's temp dir");
        fs::set_permissions(&d, fs::Permissions::from_mode(0o700)).unwrap();
        for sub in ["ws", "outside", "state"] {
            fs::create_dir(d.join(sub)).unwrap();
        }
        TempDir(d)
    }
    fn ws(&self) -> PathBuf {
        self.0.join("ws")
    }
    fn outside(&self) -> PathBuf {
        self.0.join("outside")
    }
    /// The options every run of the tests has: its workspace and state dir,
    /// no tool caches (nothing granted in the real home).
    fn builder(&self, mode: Mode) -> Builder {
        Builder::new().workspace(self.ws()).state_dir(self.0.join("state")).no_caches().mode(mode)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

fn skip(name: &str, why: &str) {
    if std::env::var("CORDON_MUST_WORK").ok().as_deref() == Some("1") {
        panic!("{}: {} (CORDON_MUST_WORK=1: a skip is a failure)", name, why);
    }
    println!("cordon-skip: {}: {}", name, why);
}

/// A required run whose first spawn has settled the decision; None (after
/// the skip line) where confinement is unavailable here.
fn confined(name: &str, b: Builder) -> Option<Run> {
    let run = match b.begin() {
        Ok(r) => r,
        Err(e) if e.code() == ErrorCode::Unavailable => {
            skip(name, &format!("confinement unavailable: {}", e.message()));
            return None;
        }
        Err(e) => panic!("{}: begin: {}", name, e),
    };
    match run.output(&Command::new("true")) {
        Ok(o) => assert_eq!(o.status.code(), 0, "{}: the first command", name),
        Err(e) if e.code() == ErrorCode::Unavailable => {
            skip(name, &format!("confinement unavailable: {}", e.message()));
            return None;
        }
        Err(e) => panic!("{}: the first spawn: {}", name, e),
    }
    assert!(run.applied(), "{}: a required run that ran is confined", name);
    Some(run)
}

fn sh(script: &str) -> Command<'static> {
    Command::new("sh").arg("-c").arg(script)
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn an_outside_write_is_refused_and_the_outside_file_unchanged() {
    let t = TempDir::new("outside");
    let target = t.outside().join("f");
    fs::write(&target, "original\n").unwrap();
    let new = t.outside().join("new");
    // The command reads the file (so it sees it), then writes it and makes
    // a new file beside it, then writes inside.
    let script = "cat \"$1\"; echo changed >\"$1\"; s=$?; echo new >\"$2\"; \
                  echo inside >\"$3\"; exit $((s + $?))";
    let cmd = || sh(script).arg("sh").arg(&target).arg(&new).arg(t.ws().join("in"));

    // Started in the outside directory, which lies in /tmp outside the
    // writable set: the run then sees the machine's /tmp, read-only
    // (tmp_shared_read_only), so the file is there to be refused.
    let b = t.builder(Mode::Required).cwd(t.outside());
    let run = match confined("outside-write", b) {
        Some(r) => r,
        None => return,
    };
    let out = run.output(&cmd()).unwrap();
    assert_eq!(text(&out.stdout), "original\n", "the command saw the file");
    assert_ne!(out.status.code(), 0, "the outside writes failed");
    assert_eq!(fs::read_to_string(&target).unwrap(), "original\n", "the outside file unchanged");
    assert!(!new.exists(), "no new file outside");
    assert_eq!(
        fs::read_to_string(t.ws().join("in")).unwrap(),
        "inside\n",
        "the inside write landed"
    );
    let err = text(&out.stderr);
    assert!(
        err.contains("Read-only file system") || err.contains("Permission denied"),
        "the refusal reached the command: {}",
        err
    );
    let code = out.status.code();
    let report = run.end().unwrap();
    let start = report.start.expect("a start event");
    let exit = report.exit.expect("an exit event");
    assert!(start.applied);
    assert_eq!(start.mode, Mode::Required);
    assert_eq!(start.cwd.as_deref(), Some(t.outside().as_path()));
    assert_eq!(start.run_id, exit.run_id, "one run id");
    assert_eq!(exit.exit_code, code, "the exit event says the command's status");
    assert!(exit.possible_refusals.unwrap().iter().any(|r| r.kind == "write"));
    assert_eq!(report.last.unwrap().code(), code);

    // The run's default view (a private /tmp where the mount layer can
    // make one, which hides the machine's): refused as well.
    let run = confined("outside-write", t.builder(Mode::Required)).unwrap();
    let out = run.output(&cmd()).unwrap();
    assert_ne!(out.status.code(), 0);
    assert_eq!(fs::read_to_string(&target).unwrap(), "original\n");
    assert!(!new.exists());
    drop(run);

    // Control: the same command unconfined changes the file, so the
    // checks above would see a write that got through.
    let run = t.builder(Mode::Off).cwd(t.outside()).begin().unwrap();
    let out = run.output(&cmd()).unwrap();
    assert_eq!(out.status.code(), 0, "unconfined: {}", text(&out.stderr));
    assert_eq!(fs::read_to_string(&target).unwrap(), "changed\n");
    assert!(new.exists());
    let report = run.end().unwrap();
    assert!(!report.start.unwrap().applied);
}

#[test]
fn a_denied_read_gives_nothing_of_the_secret() {
    let t = TempDir::new("deny");
    // In the workspace: the command sees it (and may write it) but must
    // not read it.
    let secret = t.ws().join(".env");
    fs::write(&secret, "TOKEN-8d1f0c\n").unwrap();
    let run = match confined("deny-read", t.builder(Mode::Required).deny_read(&secret)) {
        Some(r) => r,
        None => return,
    };
    let out = run.output(&sh("cat .env; ls -a")).unwrap();
    assert!(!text(&out.stdout).contains("TOKEN-8d1f0c"), "the secret was read");
    assert!(text(&out.stdout).contains(".env"), "the file is there: {}", text(&out.stdout));
    let report = run.end().unwrap();
    let denied = report.start.unwrap().read_denied.unwrap();
    assert!(denied.iter().any(|d| d.path == secret && d.explicit && d.enforced));

    let run = t.builder(Mode::Off).begin().unwrap();
    let out = run.output(&sh("cat .env")).unwrap();
    assert_eq!(text(&out.stdout), "TOKEN-8d1f0c\n", "control: readable unconfined");
    drop(run);
}

#[test]
fn a_protected_path_in_the_workspace_stays_as_it_was() {
    let t = TempDir::new("protect");
    let frozen = t.ws().join("frozen");
    fs::write(&frozen, "v1\n").unwrap();
    let run = match confined("protect", t.builder(Mode::Required).protect(&frozen)) {
        Some(r) => r,
        None => return,
    };
    let out = run.output(&sh("echo v2 >frozen; s=$?; echo other >other; exit $s")).unwrap();
    assert_ne!(out.status.code(), 0);
    assert_eq!(fs::read_to_string(&frozen).unwrap(), "v1\n", "the protected file unchanged");
    assert!(t.ws().join("other").exists(), "the rest of the workspace writable");
    drop(run);
}

#[test]
fn network_off_never_reaches_a_listener_outside() {
    let python = Path::new("/usr/bin/python3");
    if !python.exists() {
        skip("network-off", "no /usr/bin/python3 to connect with");
        return;
    }
    let t = TempDir::new("net");
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    l.set_nonblocking(true).unwrap();
    let port = l.local_addr().unwrap().port().to_string();
    let connect = |net: Network| {
        let run =
            t.builder(if net == Network::Off { Mode::Required } else { Mode::Off }).network(net);
        (run, Command::new(python).arg("-c").arg(
            "import socket,sys\ns=socket.create_connection(('127.0.0.1',int(sys.argv[1])),3)\ns.sendall(b'x')",
        ).arg(&port))
    };
    let (b, cmd) = connect(Network::Off);
    let run = match confined("network-off", b) {
        Some(r) => r,
        None => return,
    };
    let out = run.output(&cmd).unwrap();
    assert_ne!(out.status.code(), 0, "the connect failed");
    let report = run.end().unwrap();
    assert_eq!(report.start.unwrap().network.as_deref(), Some("off"));
    match l.accept() {
        Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
        other => panic!("the listener outside was reached: {:?}", other),
    }

    let (b, cmd) = connect(Network::On);
    let run = b.begin().unwrap();
    assert_eq!(run.output(&cmd).unwrap().status.code(), 0);
    drop(run);
    l.set_nonblocking(false).unwrap();
    assert!(l.accept().is_ok(), "control: reached unconfined");
}

#[test]
fn spawns_from_threads_at_once_each_get_their_own_stdio() {
    let t = TempDir::new("threads");
    let run = match confined("threads", t.builder(Mode::Required)) {
        Some(r) => r,
        None => return,
    };
    std::thread::scope(|s| {
        for th in 0..4 {
            let run = &run;
            s.spawn(move || {
                for round in 0..3 {
                    let token = format!("t{}r{}", th, round);
                    let mut child = run
                        .spawn(
                            &sh("read x; echo \"out $x\"; echo \"err $x\" >&2; exit 3")
                                .stdin(Stdio::Pipe)
                                .stdout(Stdio::Pipe)
                                .stderr(Stdio::Pipe),
                        )
                        .unwrap();
                    child
                        .stdin
                        .as_mut()
                        .unwrap()
                        .write_all(format!("{}\n", token).as_bytes())
                        .unwrap();
                    let out = child.wait_with_output().unwrap();
                    assert_eq!(text(&out.stdout), format!("out {}\n", token));
                    assert_eq!(text(&out.stderr), format!("err {}\n", token));
                    assert_eq!(out.status.code(), 3);
                }
            });
        }
    });
    // An fd of ours (a file in the workspace) and 2>&1.
    let f = fs::File::create(t.ws().join("log")).unwrap();
    let child = run
        .spawn(
            &sh("echo one; echo two >&2")
                .stdin(Stdio::Null)
                .stdout(Stdio::Fd(f.as_fd()))
                .stderr(Stdio::ToStdout),
        )
        .unwrap();
    assert!(child.stdout.is_none(), "no pipe handed back for an fd");
    assert_eq!(child.wait().unwrap().code(), 0);
    drop(f);
    assert_eq!(fs::read_to_string(t.ws().join("log")).unwrap(), "one\ntwo\n");
    // stdin from /dev/null: end of file at once.
    let out = run.output(&sh("cat; echo end")).unwrap();
    assert_eq!(text(&out.stdout), "end\n");
    drop(run);
}

#[test]
fn the_events_say_how_the_command_ended_and_the_timeout_kills() {
    let t = TempDir::new("timeout");
    let run =
        match confined("timeout", t.builder(Mode::Required).timeout(Duration::from_millis(300))) {
            Some(r) => r,
            None => return,
        };
    let start = std::time::Instant::now();
    let st = run.output(&Command::new("sleep").arg("30")).unwrap().status;
    assert!(start.elapsed() < Duration::from_secs(20));
    assert!(st.timed_out());
    assert_eq!(st.code(), 124);
    let status = run.status().unwrap();
    assert!(status.applied);
    // The start event reaches events() from the reader thread, a moment
    // after the spawn that wrote it.
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    let seen = loop {
        let ev = run.events();
        if let Some(s) =
            ev.iter().find_map(|e| if let Event::Status(s) = e { Some(s.clone()) } else { None })
        {
            break s;
        }
        assert!(std::time::Instant::now() < deadline, "no start event in events()");
        std::thread::sleep(Duration::from_millis(10));
    };
    assert_eq!(seen.run_id, status.run_id, "cordon_status_json is the run's start event");
    let report = run.end().unwrap();
    let exit = report.exit.unwrap();
    assert!(exit.timed_out);
    assert_eq!(exit.exit_code, 124);
    assert!(report.events.iter().all(|e| !matches!(e, Event::Invalid { .. })));
}

#[test]
fn errors_carry_the_librarys_code_and_message() {
    let t = TempDir::new("errors");
    let e = Builder::new()
        .workspace("/")
        .state_dir(t.0.join("state"))
        .begin()
        .err()
        .expect("/ refused");
    assert_eq!(e.code(), ErrorCode::Refused);
    assert!(!e.message().is_empty(), "the library's message");

    let e = t.builder(Mode::Auto).option("no-such-option", Some("x")).begin().err().unwrap();
    assert_eq!(e.code(), ErrorCode::InvalidArgument);
    assert!(e.message().contains("no-such-option"), "{}", e.message());

    let e = t.builder(Mode::Auto).option("network", Some("sideways")).begin().err().unwrap();
    assert_eq!(e.code(), ErrorCode::InvalidArgument);
    assert!(e.message().contains("sideways"), "{}", e.message());

    // A profile's network off is not undone by a later call.
    let e = t.builder(Mode::Auto).profile("agent").network(Network::On).begin().err().unwrap();
    assert_eq!(e.code(), ErrorCode::InvalidArgument);
    assert!(e.message().contains("--network given twice"), "{}", e.message());

    let e = t.builder(Mode::Auto).profile("no-such-profile").begin().err().unwrap();
    assert_eq!(e.code(), ErrorCode::InvalidArgument, "{}", e);

    let run = t.builder(Mode::Auto).begin().unwrap();
    let e = run.spawn(&Command::new("cordon-no-such-command")).err().unwrap();
    assert_eq!(e.code(), ErrorCode::Exec, "{}", e);
    let e = run.spawn(&Command::new("a\0b")).err().unwrap();
    assert_eq!(e.code(), ErrorCode::InvalidArgument);
    let e = run.spawn(&sh("true").stdout(Stdio::ToStdout)).err().unwrap();
    assert_eq!(e.code(), ErrorCode::InvalidArgument);
    drop(run);

    // A network socket given as stdout with the network off would leak.
    let run = match confined("errors", t.builder(Mode::Required).network(Network::Off)) {
        Some(r) => r,
        None => return,
    };
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let s = std::net::TcpStream::connect(l.local_addr().unwrap()).unwrap();
    let e = run.spawn(&sh("echo leaked").stdout(Stdio::Fd(s.as_fd()))).err().unwrap();
    assert_eq!(e.code(), ErrorCode::Refused, "{}", e);
    let (mut peer, _) = l.accept().unwrap();
    drop(run);
    drop(s);
    let mut got = Vec::new();
    peer.read_to_end(&mut got).unwrap();
    assert!(got.is_empty(), "nothing reached the socket");
}

#[test]
fn dropping_the_child_kills_it_and_dropping_the_run_ends_it() {
    let t = TempDir::new("drop");
    let status = t.0.join("status.jsonl");
    let run = match confined("drop", t.builder(Mode::Required).status_file(&status)) {
        Some(r) => r,
        None => return,
    };
    let tmpdir = run.tmpdir().expect("a temp dir");
    assert!(tmpdir.is_dir());
    let child = run.spawn(&Command::new("sleep").arg("30")).unwrap();
    let proc_dir = PathBuf::from(format!("/proc/{}", child.id()));
    assert!(proc_dir.exists());
    drop(child);
    assert!(!proc_dir.exists(), "the dropped child was killed and reaped");
    assert_eq!(run.output(&Command::new("true")).unwrap().status.code(), 0);
    drop(run);
    assert!(!tmpdir.exists(), "the run's temp dir removed");
    let events = cordon::events::parse_lines(&fs::read(&status).unwrap());
    assert!(matches!(events.first(), Some(Event::Status(_))));
    assert!(
        matches!(events.last(), Some(Event::Exit(e)) if e.exit_code == 0),
        "{:?}",
        events.last()
    );
}

#[test]
fn a_policy_file_applies_and_the_start_event_names_it() {
    let t = TempDir::new("policy");
    fs::write(t.ws().join("frozen"), "v1\n").unwrap();
    let policy = t.0.join("run.policy");
    fs::write(&policy, "# the tests' policy\nprotect frozen\n").unwrap();
    fs::set_permissions(&policy, fs::Permissions::from_mode(0o600)).unwrap();
    let run = match confined("policy", t.builder(Mode::Required).policy(&policy)) {
        Some(r) => r,
        None => return,
    };
    let out = run.output(&sh("echo v2 >frozen")).unwrap();
    assert_ne!(out.status.code(), 0);
    assert_eq!(fs::read_to_string(t.ws().join("frozen")).unwrap(), "v1\n");
    let start = run.end().unwrap().start.unwrap();
    let names = start.raw.get("policy").and_then(|p| p.as_array()).unwrap().to_vec();
    assert!(names.iter().any(|p| p.get("file").and_then(|f| f.as_path()) == Some(policy.clone())));

    let bad = t.0.join("bad.policy");
    fs::write(&bad, "protect\nno-such-option 1\n").unwrap();
    fs::set_permissions(&bad, fs::Permissions::from_mode(0o600)).unwrap();
    let e = t.builder(Mode::Auto).policy(&bad).begin().err().unwrap();
    assert_eq!(e.code(), ErrorCode::InvalidArgument);
    assert!(e.message().contains("bad.policy:1"), "FILE:LINE in {}", e.message());
}

#[test]
fn a_planted_hook_is_moved_aside_and_end_reports_it() {
    let t = TempDir::new("tamper");
    let run = match confined("tamper", t.builder(Mode::Required)) {
        Some(r) => r,
        None => return,
    };
    let out = run
        .output(&sh("mkdir -p .claude && echo '{\"hooks\":{}}' >.claude/settings.json"))
        .unwrap();
    assert_eq!(out.status.code(), 0, "{}", text(&out.stderr));
    let e = run.end().expect_err("required: a run that planted files fails");
    assert_eq!(e.code(), ErrorCode::Tampered);
    let report = e.report().expect("the report comes with the error");
    // The run made .claude: the whole directory is moved aside.
    let held = report.tampered.iter().find(|x| x.path == t.ws().join(".claude")).expect("listed");
    let moved = held.moved_to.as_ref().expect("moved");
    assert!(moved.join("settings.json").is_file(), "what it planted is at {}", moved.display());
    assert!(!t.ws().join(".claude").exists(), "nothing left at the name");
    let exit = report.exit.as_ref().unwrap();
    assert_eq!(exit.exit_code, 125);
    assert_eq!(exit.command_exit_code, 0);
    assert_eq!(exit.tampered, report.tampered, "the getters and the event agree");
}

#[test]
fn paths_that_are_not_utf8_come_back_as_their_bytes() {
    let t = TempDir::new("bytes");
    let ws = t.0.join(std::ffi::OsStr::from_bytes(b"w\xffs"));
    fs::create_dir(&ws).unwrap();
    let b = Builder::new()
        .workspace(&ws)
        .cwd(&ws)
        .state_dir(t.0.join("state"))
        .no_caches()
        .mode(Mode::Required);
    let run = match confined("bytes", b) {
        Some(r) => r,
        None => return,
    };
    assert_eq!(run.output(&sh("echo x >f")).unwrap().status.code(), 0);
    let start = run.end().unwrap().start.unwrap();
    assert_eq!(start.cwd.as_deref(), Some(ws.as_path()));
    assert!(start.writable.unwrap().contains(&ws));
    assert!(ws.join("f").exists());
}
