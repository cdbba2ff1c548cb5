//! SimGrid platform files for Batsim: a homogeneous cluster of `hosts`
//! compute hosts (`host0`…) plus one master host (`master_host0`, the
//! `role=master` host Batsim runs its own processes on), joined by a backbone.
//!
//! With `latency = false` every latency is 0, so scheduling exchanges cost no
//! simulated time and a Batsim run makes exactly the decisions of the built-in
//! simulator (`interstice replay`).
//!
//! Batsim numbers resources by host name sorted as text (`host0`, `host1`,
//! `host10`, …); the adapter works with those numbers, so this only matters
//! when reading Batsim's outputs by host name.

use std::fmt::Write as _;

/// How to build the platform.
#[derive(Clone, Debug, PartialEq)]
pub struct PlatformSpec {
    /// Compute hosts (≥ 1).
    pub hosts: u32,
    /// Default latencies (50 µs links, 500 µs backbone) or all zero.
    pub latency: bool,
    /// Host speed, in flop/s (`1Gf` = 1e9).
    pub speed_flops: f64,
}

impl PlatformSpec {
    /// `hosts` hosts at 1 Gflop/s with default latencies.
    pub fn new(hosts: u32) -> PlatformSpec {
        PlatformSpec {
            hosts,
            latency: true,
            speed_flops: 1e9,
        }
    }
}

fn speed_text(flops: f64) -> String {
    if flops >= 1e9 && (flops / 1e9).fract() == 0.0 {
        format!("{}Gf", flops / 1e9)
    } else if flops >= 1e6 && (flops / 1e6).fract() == 0.0 {
        format!("{}Mf", flops / 1e6)
    } else {
        format!("{flops}f")
    }
}

/// Why a [`PlatformSpec`] makes no platform.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum PlatformError {
    /// `hosts` is 0.
    #[error("a platform needs at least one host: pass --hosts N with N >= 1")]
    NoHosts,
    /// The host speed is zero, negative, infinite or NaN.
    #[error("host speed {0} flop/s must be positive")]
    Speed(f64),
}

/// The platform XML (SimGrid DTD 4.1).
pub fn platform_xml(spec: &PlatformSpec) -> Result<String, PlatformError> {
    if spec.hosts == 0 {
        return Err(PlatformError::NoHosts);
    }
    if !(spec.speed_flops.is_finite() && spec.speed_flops > 0.0) {
        return Err(PlatformError::Speed(spec.speed_flops));
    }
    let (lat, bb_lat, backbone_lat) = if spec.latency {
        ("50us", "500us", "500us")
    } else {
        ("0", "0", "0")
    };
    let speed = speed_text(spec.speed_flops);
    let last = spec.hosts - 1;
    let mut xml = String::new();
    xml.push_str("<?xml version='1.0'?>\n");
    xml.push_str("<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n");
    xml.push_str("<platform version=\"4.1\">\n\n");
    xml.push_str("<zone id=\"AS0\" routing=\"Full\">\n");
    let _ = writeln!(
        xml,
        "    <cluster id=\"my_cluster_1\" prefix=\"host\" suffix=\"\" radical=\"0-{last}\"\n        \
         speed=\"{speed}\" bw=\"125MBps\" lat=\"{lat}\" bb_bw=\"2.25GBps\"\n        bb_lat=\"{bb_lat}\" />\n"
    );
    let _ = writeln!(
        xml,
        "    <cluster id=\"my_cluster_2\" prefix=\"master_host\" suffix=\"\" radical=\"0-0\"\n        \
         speed=\"{speed}\" bw=\"125MBps\" lat=\"{lat}\" bb_bw=\"2.25GBps\"\n        bb_lat=\"{bb_lat}\">\n        \
         <prop id=\"role\" value=\"master\" />\n    </cluster>\n"
    );
    let _ = writeln!(
        xml,
        "    <link id=\"backbone\" bandwidth=\"1.25GBps\" latency=\"{backbone_lat}\" />\n"
    );
    xml.push_str(
        "    <zoneRoute src=\"my_cluster_1\" dst=\"my_cluster_2\" gw_src=\"hostmy_cluster_1_router\"\n        \
         gw_dst=\"master_hostmy_cluster_2_router\">\n        <link_ctn id=\"backbone\" />\n    </zoneRoute>\n",
    );
    xml.push_str("</zone>\n</platform>\n");
    Ok(xml)
}
