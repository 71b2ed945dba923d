//! The `sweep` binary: parse the command line, run, print errors, exit with the code.

fn main() {
    std::process::exit(sweep::cli::main());
}
