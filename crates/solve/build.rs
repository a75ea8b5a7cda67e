//! Detects the SIMD features of the build machine, for the tests only: the tests of a fast
//! kernel (`src/seq/simd.rs`) that cannot run on this CPU are ignored, with the reason,
//! rather than passing without running it. The engine itself detects the CPU's features at
//! run time; nothing here changes what it computes or how.
//!
//! Sets `has_avx2` (AVX2) and `has_avx512_vbmi` (what the targeted scan needs: AVX-512 F,
//! BW, VBMI and VBMI2, AVX2 and POPCNT), only when the build machine is the target
//! (`HOST` = `TARGET`, x86-64).

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rustc-check-cfg=cfg(has_avx2)");
    println!("cargo::rustc-check-cfg=cfg(has_avx512_vbmi)");
    let host = std::env::var("HOST").unwrap_or_default();
    let target = std::env::var("TARGET").unwrap_or_default();
    if host != target {
        return;
    }
    // The build script runs on the host, which is the target here.
    #[cfg(target_arch = "x86_64")]
    {
        let avx2 = std::is_x86_feature_detected!("avx2");
        if avx2 {
            println!("cargo::rustc-cfg=has_avx2");
        }
        if avx2
            && std::is_x86_feature_detected!("avx512f")
            && std::is_x86_feature_detected!("avx512bw")
            && std::is_x86_feature_detected!("avx512vbmi")
            && std::is_x86_feature_detected!("avx512vbmi2")
            && std::is_x86_feature_detected!("popcnt")
        {
            println!("cargo::rustc-cfg=has_avx512_vbmi");
        }
    }
}
