//! `grundy-verify FILE`: checks a grundy periodicity certificate on its own (the same check
//! as `grundy verify FILE`). Exit codes: 0 valid, 1 refused (values or claim wrong), 2 the
//! file does not read as a certificate.

use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() != 1 || args[0].starts_with('-') {
        eprintln!("usage: grundy-verify CERTIFICATE");
        std::process::exit(2);
    }
    std::process::exit(grundy_verify::run_file(
        std::path::Path::new(&args[0]),
        &mut std::io::stdout(),
        &mut std::io::stderr(),
        Instant::now(),
    ));
}
