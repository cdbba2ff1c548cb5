//! The client's unit tests: endpoints, response parsing and bounds.

use super::*;

fn complete(raw: &[u8], at_eof: bool) -> RawResponse {
    match parse_response(raw, at_eof) {
        Ok(Parsed::Complete(response)) => response,
        other => panic!("expected a whole answer, got {other:?}"),
    }
}

#[test]
fn content_length_body_is_returned() {
    let raw = b"HTTP/1.1 200 OK\r\ncontent-length: 11\r\n\r\n{\"ok\":true}";
    assert_eq!(complete(raw, false).body, b"{\"ok\":true}");
}

#[test]
fn parses_plain_and_chunked_answers() {
    let plain = complete(b"HTTP/1.1 404 Not Found\r\ncontent-length: 2\r\n\r\n{}", false);
    assert_eq!((plain.status, plain.text().as_str()), (404, "{}"));
    let chunked = complete(
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n",
        false,
    );
    assert_eq!(chunked.text(), "abcde");
    let chunked =
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4\r\n{\"a\"\r\n3\r\n:1}\r\n0\r\n\r\n";
    assert_eq!(complete(chunked, false).body, b"{\"a\":1}");
    assert!(parse_final(b"garbage").is_err());
}

#[test]
fn short_body_is_incomplete_until_eof() {
    let raw = b"HTTP/1.1 200 OK\r\nContent-Length: 20\r\n\r\n{\"ok\"";
    assert!(matches!(parse_response(raw, false), Ok(Parsed::Incomplete)));
    let open = b"HTTP/1.1 200 OK\r\n\r\n{\"ok\"";
    assert!(matches!(parse_response(open, false), Ok(Parsed::Incomplete)));
    assert_eq!(complete(open, true).body, b"{\"ok\"");
    let cut = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n10\r\nab";
    assert!(matches!(parse_final(cut), Err(ClientError::Protocol(_))));
    let short = b"HTTP/1.1 200 OK\r\nContent-Length: 20\r\n\r\n{\"ok\"";
    assert!(matches!(parse_final(short), Err(ClientError::Protocol(_))));
}

#[test]
fn error_status_carries_the_json_error_text() {
    let body = r#"{"error":"procs is 0"}"#;
    let raw = format!(
        "HTTP/1.1 400 Bad Request\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    match complete(raw.as_bytes(), false).success() {
        Err(ClientError::Http { status, message }) => {
            assert_eq!(status, 400);
            assert_eq!(message, "procs is 0");
        }
        other => panic!("expected an HTTP error, got {other:?}"),
    }
}

#[test]
fn garbage_is_a_protocol_error() {
    assert!(matches!(
        parse_response(b"SSH-2.0\r\n\r\n", true),
        Err(ClientError::Protocol(_))
    ));
    assert!(matches!(
        parse_response(
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
            false
        ),
        Err(ClientError::Protocol(_))
    ));
}

#[test]
fn oversized_answers_are_refused() {
    let endless_headers = vec![b'a'; MAX_HEADER_BYTES + 1];
    assert!(matches!(
        parse_response(&endless_headers, false),
        Err(ClientError::TooLarge { what: "headers", .. })
    ));
    let huge = format!(
        "HTTP/1.1 200 OK\r\nContent-Length: {}\r\n\r\n",
        MAX_RESPONSE_BYTES + 1
    );
    assert!(matches!(
        parse_response(huge.as_bytes(), false),
        Err(ClientError::TooLarge { what: "answer", .. })
    ));
    let huge_chunk = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffff\r\n";
    assert!(matches!(
        parse_response(huge_chunk, false),
        Err(ClientError::TooLarge { .. })
    ));
}

/// A fresh socket in a scratch directory (removed by the caller).
fn listening(name: &str) -> (PathBuf, PathBuf, std::os::unix::net::UnixListener) {
    let dir = std::env::temp_dir().join(format!("interstice-api-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("d.sock");
    let _ = std::fs::remove_file(&path);
    let listener = std::os::unix::net::UnixListener::bind(&path).unwrap();
    (dir, path, listener)
}

#[test]
fn endpoints_are_socket_paths_or_http_addresses() {
    assert_eq!(
        "/run/a.sock".parse::<Endpoint>(),
        Ok(Endpoint::Unix(PathBuf::from("/run/a.sock")))
    );
    assert_eq!(
        "http://127.0.0.1:9477/".parse::<Endpoint>(),
        Ok(Endpoint::Tcp("127.0.0.1:9477".to_string()))
    );
    assert_eq!(
        "http://127.0.0.1:9477".parse::<Endpoint>().unwrap().to_string(),
        "http://127.0.0.1:9477"
    );
    let tls = "https://broker.example:9477".parse::<Endpoint>().unwrap();
    assert_eq!(tls, Endpoint::Tls("broker.example:9477".to_string()));
    assert_eq!(tls.to_string(), "https://broker.example:9477");
    // Without pins, an https:// endpoint gets nothing, not even a connection attempt's bytes.
    let unpinned = Client::at(tls, Duration::from_millis(200)).with_token(Some("t".repeat(20)));
    assert!(matches!(unpinned.health(), Err(ClientError::Unproven { .. })));
    for bad in [
        "relative.sock",
        "",
        "http://nohost",
        "http://:80",
        "http://h:0",
        "https://h:0",
        "ftp://h:1",
        "http://h:1/x",
    ] {
        assert!(bad.parse::<Endpoint>().is_err(), "{bad:?} parsed");
    }
}

#[test]
fn tcp_endpoints_speak_the_same_http() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let server = std::thread::spawn(move || {
        let (mut stream, _) = listener.accept().unwrap();
        let mut request = [0u8; 1024];
        let _ = stream.read(&mut request).unwrap();
        stream
            .write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 11\r\n\r\n{\"ok\":true}")
            .unwrap();
    });
    let endpoint: Endpoint = format!("http://{addr}").parse().unwrap();
    let client = Client::at(endpoint, Duration::from_secs(5));
    let response = client.raw("GET", "/x", None).unwrap();
    assert_eq!(
        (response.status, response.text().as_str()),
        (200, "{\"ok\":true}")
    );
    server.join().unwrap();
    let refused = Client::at(Endpoint::Tcp(addr.to_string()), Duration::from_millis(200));
    assert!(matches!(refused.health(), Err(ClientError::Connect { .. })));
}

#[test]
fn missing_socket_is_a_connect_error() {
    let client = Client::new("/nonexistent/interstice.sock", Duration::from_millis(50));
    assert!(matches!(client.health(), Err(ClientError::Connect { .. })));
}

#[test]
fn silent_server_times_out_within_the_bound() {
    let (dir, path, listener) = listening("timeout");
    let holder = std::thread::spawn(move || {
        let (stream, _) = listener.accept().unwrap();
        std::thread::sleep(Duration::from_millis(400));
        drop(stream);
    });
    let client = Client::new(&path, Duration::from_millis(60));
    let started = Instant::now();
    let result = client.health();
    let took = started.elapsed();
    assert!(matches!(result, Err(ClientError::Timeout(_))), "{result:?}");
    assert!(took < Duration::from_millis(300), "took {took:?}");
    holder.join().unwrap();
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn full_backlog_times_out_within_the_bound() {
    // A daemon that stopped accepting: listen backlog 0 (room for one),
    // never accept, fill the queue with non-blocking connects.
    let dir = std::env::temp_dir().join(format!("interstice-api-backlog-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("d.sock");
    let _ = std::fs::remove_file(&path);
    let address = socket2::SockAddr::unix(&path).unwrap();
    let listener = socket2::Socket::new(socket2::Domain::UNIX, socket2::Type::STREAM, None).unwrap();
    listener.bind(&address).unwrap();
    listener.listen(0).unwrap();
    let mut queued = Vec::new();
    loop {
        let socket = socket2::Socket::new(socket2::Domain::UNIX, socket2::Type::STREAM, None).unwrap();
        socket.set_nonblocking(true).unwrap();
        match socket.connect(&address) {
            Ok(()) => queued.push(socket),
            Err(err) if err.kind() == std::io::ErrorKind::WouldBlock => break,
            Err(err) => panic!("filling the backlog: {err}"),
        }
        assert!(queued.len() < 1000, "the backlog never filled");
    }
    let client = Client::new(&path, Duration::from_millis(200));
    let started = Instant::now();
    let result = client.health();
    let took = started.elapsed();
    assert!(matches!(result, Err(ClientError::Timeout(_))), "{result:?}");
    assert!(took >= Duration::from_millis(150), "gave up early: {took:?}");
    assert!(took < Duration::from_millis(1000), "took {took:?}");
    drop(queued);
    drop(listener);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn answers_split_across_reads_are_joined() {
    let (dir, path, listener) = listening("split");
    let server = std::thread::spawn(move || {
        let (mut stream, _) = listener.accept().unwrap();
        let mut request = [0u8; 1024];
        let _ = stream.read(&mut request).unwrap();
        for part in [
            &b"HTTP/1.1 200 OK\r\nTransfer-Enc"[..],
            b"oding: chunked\r\n\r\n5\r\n{\"ok\"",
            b"\r\n1\r\n}\r\n0\r\n\r\n",
        ] {
            stream.write_all(part).unwrap();
            std::thread::sleep(Duration::from_millis(20));
        }
        // Keeps the connection open: the client must stop at the last chunk.
        std::thread::sleep(Duration::from_millis(300));
    });
    let client = Client::new(&path, Duration::from_secs(5));
    let started = Instant::now();
    let response = client.raw("GET", "/x", None).unwrap();
    assert_eq!((response.status, response.text().as_str()), (200, "{\"ok\"}"));
    assert!(started.elapsed() < Duration::from_millis(250));
    server.join().unwrap();
    let _ = std::fs::remove_dir_all(&dir);
}
