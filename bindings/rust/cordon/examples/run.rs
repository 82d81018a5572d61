//! Runs one command confined, prints its output and what the run reported.
//!
//!     cargo run --example run -- [-w DIR] [--required] [--network-off] -- CMD [ARG...]
//!
//! The workspace (the one tree the command may write) is DIR, else the
//! current directory. The exit status is the command's (125 when cordon
//! could not run it).
use cordon::{Builder, Command, Event, Mode, Network};
use std::process::exit;

fn main() {
    let mut args = std::env::args_os().skip(1);
    let mut b = Builder::new();
    let mut argv = Vec::new();
    while let Some(a) = args.next() {
        match a.to_str() {
            Some("-w") => match args.next() {
                Some(dir) => b = b.workspace(dir),
                None => usage(),
            },
            Some("--required") => b = b.mode(Mode::Required),
            Some("--network-off") => b = b.network(Network::Off),
            Some("--") => {
                argv.extend(args.by_ref());
            }
            _ => usage(),
        }
    }
    if argv.is_empty() {
        usage();
    }
    let run = match b.begin() {
        Ok(r) => r,
        Err(e) => fail(e),
    };
    let out = match run.output(&Command::new(&argv[0]).args(&argv[1..])) {
        Ok(o) => o,
        Err(e) => fail(e),
    };
    print!("{}", String::from_utf8_lossy(&out.stdout));
    eprint!("{}", String::from_utf8_lossy(&out.stderr));
    let report = match run.end() {
        Ok(r) => r,
        Err(e) => {
            eprintln!("{}", e);
            e.report().cloned().unwrap_or_else(|| exit(125))
        }
    };
    if let Some(s) = &report.start {
        println!(
            "-- confined: {} (backend {}, mode {}{}); gaps: {}",
            s.applied,
            s.backend,
            s.mode.identifier(),
            s.reason.as_ref().map(|r| format!(", reason {}", r)).unwrap_or_default(),
            s.gaps.join(", ")
        );
    }
    if let Some(x) = &report.exit {
        println!(
            "-- exit event: exit_code {}, signal {:?}, timed out {}, {} ms, {} file(s) moved aside",
            x.exit_code,
            x.signal,
            x.timed_out,
            x.duration_ms,
            x.tampered.len()
        );
    }
    let other =
        report.events.iter().filter(|e| !matches!(e, Event::Status(_) | Event::Exit(_))).count();
    if other > 0 {
        println!("-- {} other event(s)", other);
    }
    exit(report.exit.map(|x| x.exit_code).unwrap_or(out.status.code()));
}

fn usage() -> ! {
    eprintln!("usage: run [-w DIR] [--required] [--network-off] -- CMD [ARG...]");
    exit(125);
}

fn fail(e: cordon::Error) -> ! {
    eprintln!("{}", e);
    exit(125);
}
