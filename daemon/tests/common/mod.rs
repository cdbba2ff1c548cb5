//! Helpers the daemon's integration tests share.

#![allow(dead_code)]

pub mod users;

use interstice_api::client::Client;
use std::process::Child;
use std::time::{Duration, Instant};

/// One HTTP/1.1 request over TCP to `addr` (with a bearer `token`, if any,
/// and `body`): the status and the response body.
pub fn tcp_http(addr: &str, method: &str, path: &str, token: Option<&str>, body: &str) -> (u16, String) {
    use std::io::{Read, Write};
    let mut stream = std::net::TcpStream::connect(addr).unwrap();
    let auth = token.map_or(String::new(), |token| {
        format!("Authorization: Bearer {token}\r\n")
    });
    write!(
        stream,
        "{method} {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n{auth}Content-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    let status = answer.split_whitespace().nth(1).unwrap().parse().unwrap();
    (status, answer.split("\r\n\r\n").nth(1).unwrap_or("").to_string())
}

/// Wait up to 10 s for a daemon just started as `child` to answer `client`'s
/// health check; its exit, with `log()`, is the error.
pub fn wait_answering(client: &Client, child: &mut Child, log: impl Fn() -> String) -> Result<(), String> {
    let deadline = Instant::now() + Duration::from_secs(10);
    while client.health().is_err() {
        if let Ok(Some(status)) = child.try_wait() {
            return Err(format!("exited with {status}: {}", log()));
        }
        assert!(Instant::now() < deadline, "daemon did not come up: {}", log());
        std::thread::sleep(Duration::from_millis(20));
    }
    Ok(())
}
