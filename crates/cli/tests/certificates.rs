//! `grundy seq --certificate` past 4096 values (version 2: packed values, a declared
//! rare/common split) and `grundy verify` on it, end to end.

mod common;

use common::{no_db as grundy, stderr_of as stderr, stdout_of as stdout};

#[test]
fn packed_certificate_with_a_split_verifies_and_tampering_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let cert = dir.path().join("356.cert");
    let c = cert.to_str().unwrap();
    // 0.356: period 142 from 7315, bound 2·7315 + 142 + 3 = 14775, 14917 values.
    let o = grundy(&[
        "seq",
        "0.356",
        "-n",
        "1e5",
        "--until-period",
        "--certificate",
        c,
        "-q",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let bytes = std::fs::read(&cert).unwrap();
    let head_end = bytes.windows(7).position(|w| w == b"values ").unwrap();
    let line_end = head_end + bytes[head_end..].iter().position(|&b| b == b'\n').unwrap() + 1;
    let head = String::from_utf8(bytes[..line_end].to_vec()).unwrap();
    assert!(head.starts_with("grundy-certificate 2\n"), "{head}");
    assert!(
        head.contains("\nperiod 142\nn0 7315\nsaltus 0\ntheorem take-and-break h=2 t=3\nbound 14775\nsplit "),
        "{head}"
    );
    assert!(head.contains("\nvalues 14917 varint "), "{head}");
    // Values below 128 take a byte each: the file is about one byte a value.
    assert!(bytes.len() < 14917 + 1000, "{}", bytes.len());
    let v = grundy(&["verify", c]);
    assert_eq!(v.status.code(), Some(0), "{}", stderr(&v));
    assert!(
        stdout(&v).starts_with("valid: 0.356 has period 142 from n0 = 7315"),
        "{}",
        stdout(&v)
    );
    let tamper = |from: &str, to: &str| {
        assert!(head.contains(from), "{from}");
        let mut b = head.replacen(from, to, 1).into_bytes();
        b.extend_from_slice(&bytes[line_end..]);
        let t = dir.path().join("t.cert");
        std::fs::write(&t, b).unwrap();
        grundy(&["verify", t.to_str().unwrap()])
    };
    // A wrong split (the rare count it declares), a wrong claim, another game.
    let rare = head.split("rare=").nth(1).unwrap().split('\n').next().unwrap();
    let more = (rare.parse::<u64>().unwrap() + 1).to_string();
    for (from, to, needle) in [
        (format!("rare={rare}\n"), format!("rare={more}\n"), "wrong split"),
        ("period 142\n".into(), "period 71\n".into(), "bound"),
        ("game 0.356\n".into(), "game 0.354\n".into(), "in the certificate"),
    ] {
        let o = tamper(&from, &to);
        assert_eq!(o.status.code(), Some(1), "{from}: {}", stderr(&o));
        assert!(stderr(&o).contains(needle), "{from}: {}", stderr(&o));
    }
    // A packed value changed: the checksum catches it (exit 2, the file is damaged).
    let mut b = bytes.clone();
    b[line_end + 9000] ^= 1;
    let t = dir.path().join("d.cert");
    std::fs::write(&t, b).unwrap();
    let o = grundy(&["verify", t.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("checksum"), "{}", stderr(&o));
}

/// Writes the certificate of `code` (`--until-period`) to `path`, checking the run succeeds.
fn write_certificate(code: &str, path: &std::path::Path) -> String {
    let o = grundy(&[
        "seq",
        code,
        "-n",
        "2000",
        "--until-period",
        "--certificate",
        path.to_str().unwrap(),
        "-q",
    ]);
    assert_eq!(o.status.code(), Some(0), "{code}: {}", stderr(&o));
    std::fs::read_to_string(path).unwrap()
}

/// Arithmetic periods of hexadecimal games, proven by the level argument: the certificate
/// names it (`theorem level h=3 t=T b=B`) with the argument's bound, and `grundy verify`
/// checks it with its own code (crates/verify/src/level.rs).
#[test]
fn arithmetic_periods_of_hexadecimal_games_are_certified() {
    let dir = tempfile::tempdir().unwrap();
    for (code, head, verdict) in [
        (
            "hex:8.0",
            "game hex:8.0\nclaim arithmetic-periodic\nperiod 2\nn0 1\nsaltus 1\ntheorem level h=3 t=0 b=1\nbound 26\nvalues 28\n",
            "valid: hex:8.0 has arithmetic period 2 with saltus 1 from n0 = 1 (theorem level h=3 t=0 b=1, bound 26; 28 values",
        ),
        (
            "hex:0.8",
            "claim arithmetic-periodic\nperiod 3\nn0 1\nsaltus 1\ntheorem level h=3 t=1 b=1\nbound 40\nvalues 43\n",
            "valid: hex:0.8 has arithmetic period 3",
        ),
        (
            "0.FF",
            "period 1\nn0 0\nsaltus 1\ntheorem level h=3 t=2 b=1\nbound 15\nvalues 16\n",
            "valid: 0.FF has arithmetic period 1 with saltus 1 from n0 = 0",
        ),
        (
            "0.BF",
            "period 1\nn0 4\nsaltus 1\ntheorem level h=3 t=2 b=2\nbound 36\n",
            "valid: 0.BF has arithmetic period 1 with saltus 1 from n0 = 4",
        ),
        (
            "8.D",
            "period 24\nn0 19\nsaltus 16\ntheorem level h=3 t=1 b=1\nbound 409\nvalues 433\n",
            "valid: 8.D has arithmetic period 24 with saltus 16 from n0 = 19",
        ),
    ] {
        let cert = dir.path().join("a.cert");
        let text = write_certificate(code, &cert);
        assert!(text.starts_with("grundy-certificate 1\n"), "{text}");
        assert!(text.contains(head), "{code}: {text}");
        assert!(text.ends_with("\nend\n"), "{code}");
        let v = grundy(&["verify", cert.to_str().unwrap()]);
        assert_eq!(v.status.code(), Some(0), "{code}: {}", stderr(&v));
        assert!(stdout(&v).starts_with(verdict), "{code}: {}", stdout(&v));
        assert!(stdout(&v).contains("n0 is the least"), "{}", stdout(&v));
    }
}

/// A certificate of 0.8F (period 7, saltus 4 from n0 = 7, bound 114) altered in a value,
/// the saltus, the period, n0, the bound or the theorem line is refused (exit 1, with the
/// reason); cut short, it is not a certificate (exit 2).
#[test]
fn tampered_arithmetic_certificates_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let cert = dir.path().join("8F.cert");
    let good = write_certificate("0.8F", &cert);
    assert!(
        good.contains("\nclaim arithmetic-periodic\nperiod 7\nn0 7\nsaltus 4\ntheorem level h=3 t=2 b=1\nbound 114\nvalues 121\n0 0 1 "),
        "{good}"
    );
    let check = |text: &str| {
        let t = dir.path().join("t.cert");
        std::fs::write(&t, text).unwrap();
        grundy(&["verify", t.to_str().unwrap()])
    };
    // The last value: G(120) = G(113) + 4; one more is caught by the recomputation.
    let last = good
        .trim_end_matches("\nend\n")
        .rsplit(' ')
        .next()
        .unwrap()
        .to_string();
    let bumped = (last.parse::<u64>().unwrap() + 1).to_string();
    let tail_from = format!(" {last}\nend\n");
    let tail_to = format!(" {bumped}\nend\n");
    for (from, to, needle) in [
        (
            "values 121\n0 0 1 ",
            "values 121\n0 0 2 ",
            "G(2) is 2 in the certificate",
        ),
        (tail_from.as_str(), tail_to.as_str(), "G(120)"),
        ("saltus 4\n", "saltus 8\n", "fails"),
        ("saltus 4\n", "saltus 3\n", "power of two"),
        ("period 7\n", "period 14\n", "the level argument fails"),
        ("n0 7\n", "n0 6\n", "fails"),
        ("bound 114\n", "bound 113\n", "needs 114"),
        ("bound 114\n", "bound 121\n", "needs 114"),
        (
            "theorem level h=3 t=2 b=1\n",
            "theorem level h=3 t=2 b=2\n",
            "theorem 'level h=3 t=2 b=2' stated",
        ),
        (
            "theorem level h=3 t=2 b=1\n",
            "theorem take-and-break h=3 t=2\n",
            "stated",
        ),
        ("claim arithmetic-periodic\n", "claim periodic\n", "periodic"),
    ] {
        assert!(good.contains(from), "{from}");
        let o = check(&good.replacen(from, to, 1));
        assert_eq!(o.status.code(), Some(1), "{from} -> {to}: {}", stderr(&o));
        assert!(stderr(&o).contains(needle), "{from} -> {to}: {}", stderr(&o));
    }
    // Cut short: no `end` line, or cut inside the values.
    for cut in [good.len() - 4, good.len() / 2] {
        let o = check(&good[..cut]);
        assert_eq!(o.status.code(), Some(2), "cut at {cut}: {}", stderr(&o));
        assert!(stderr(&o).contains("not a certificate"), "{}", stderr(&o));
    }
}
