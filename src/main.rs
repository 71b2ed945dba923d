//! The `sweep` binary: parse the command line, run, print errors, exit with the code.

fn main() {
    // `sweep __fence ...`: the supervisor `sweep` puts around each program it starts.
    if let Some(code) = sweep::run::fence::main_if_asked() {
        std::process::exit(code);
    }
    sweep::run::fence::enable();
    // Die quietly when the reader of our output goes away (`sweep summary ... | head`),
    // as command-line tools do, instead of panicking on a broken pipe.
    #[cfg(unix)]
    // SAFETY: restoring the default disposition of SIGPIPE before any thread starts.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    std::process::exit(sweep::cli::main());
}
