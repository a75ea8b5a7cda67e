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
