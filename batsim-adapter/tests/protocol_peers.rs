//! `interstice batsim` against local peers that are not its Batsim: any
//! process may connect to a `tcp://` endpoint. A connection that does not
//! speak ZeroMQ and a peer whose first message is not a Batsim message are
//! answered (when they ask) and ignored; the first Batsim peer drives, and
//! a second peer that speaks stops the run (without credentials the
//! scheduler cannot tell which one is Batsim: the first may be another
//! local user's, driving a run whose results must not be written). Only
//! loopback is bound unless asked.

mod protocol_support;

use interstice_batsim::protocol::{serve, ServerError, ServerOptions, Session};
use interstice_core::Policy;
use protocol_support::{begins, config, message, submitted, Adapter, Peer};
use serde_json::json;
use std::io::Write;
use std::time::Duration;

/// A free loopback port's `tcp://` endpoint and the server's options on it.
fn tcp_options() -> (u16, ServerOptions) {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let options = ServerOptions {
        endpoint: format!("tcp://127.0.0.1:{port}"),
        timeout: Some(Duration::from_secs(10)),
        driver_uid: None,
        allow_remote: false,
    };
    (port, options)
}

/// The server on `options`, in a thread.
fn spawn(
    options: ServerOptions,
) -> std::thread::JoinHandle<Result<interstice_batsim::protocol::ServeReport, ServerError>> {
    std::thread::spawn(move || serve(&options, &mut Session::new(config(Policy::Fcfs))))
}

#[test]
fn connections_that_do_not_speak_zeromq_neither_abort_nor_end_a_run() {
    let (port, options) = tcp_options();
    let endpoint = options.endpoint.clone();
    let server = spawn(options);
    let batsim = Peer::connect(&endpoint);
    assert_eq!(
        batsim.ask(&begins(4, false, "")),
        json!({"now": 0.0, "events": []})
    );
    // A plain TCP connect that closes, and one that sends garbage.
    for garbage in [&b""[..], b"GET / HTTP/1.1\r\n\r\n\xff\xff\xff\xff"] {
        let mut stray = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
        let _ = stray.write_all(garbage);
        drop(stray);
    }
    std::thread::sleep(Duration::from_millis(300));
    // Batsim goes on to the end.
    let reply = batsim.ask(&message(
        1.0,
        vec![("JOB_SUBMITTED", submitted(1, 4, 100.0, "d10"))],
    ));
    assert_eq!(reply["events"][0]["type"], "EXECUTE_JOB", "{reply}");
    let done =
        json!({"job_id": "w0!1", "job_state": "COMPLETED_SUCCESSFULLY", "return_code": 0, "alloc": "0-3"});
    batsim.ask(&message(11.0, vec![("JOB_COMPLETED", done)]));
    batsim.ask(&message(11.0, vec![("SIMULATION_ENDS", json!({}))]));
    let report = server.join().unwrap().expect("the strays did not end the run");
    assert_eq!(report.messages, 4);
}

/// The finding: another local user's peer spoke first on the default
/// `tcp://` endpoint and drove the run (its JOB_SUBMITTED got an
/// EXECUTE_JOB), and the real Batsim then failed. Now whichever peer speaks
/// second (the real Batsim, or a stray) stops the run, which writes nothing.
#[test]
fn a_second_peer_on_tcp_stops_the_run() {
    let (_, options) = tcp_options();
    let endpoint = options.endpoint.clone();
    let server = spawn(options);
    let first = Peer::connect(&endpoint);
    assert_eq!(
        first.ask(&begins(4, false, "")),
        json!({"now": 0.0, "events": []})
    );
    let second = Peer::connect(&endpoint);
    let reply = second.ask_raw(&begins(4, false, "").to_string());
    assert!(
        reply.starts_with("interstice error: another peer drives this scheduler on tcp://"),
        "{reply}"
    );
    match server.join().unwrap() {
        Err(ServerError::SecondPeer { endpoint: stopped }) => assert_eq!(stopped, endpoint),
        other => panic!("expected SecondPeer, got {other:?}"),
    }
}

/// A `tcp://` endpoint binds loopback only unless asked: every host that
/// reaches it could drive the run.
#[test]
fn a_tcp_endpoint_off_loopback_is_refused_unless_allowed() {
    let (port, mut options) = tcp_options();
    options.endpoint = format!("tcp://0.0.0.0:{port}");
    options.timeout = Some(Duration::from_millis(200));
    let refused = spawn(options.clone()).join().unwrap().unwrap_err();
    assert!(matches!(refused, ServerError::RemoteEndpoint { .. }), "{refused}");
    assert!(refused.to_string().contains("--allow-remote"), "{refused}");
    options.allow_remote = true;
    let bound = spawn(options).join().unwrap().unwrap_err();
    assert!(
        matches!(bound, ServerError::Timeout { .. }),
        "bound, and waited for Batsim: {bound}"
    );
    for endpoint in ["tcp://127.0.0.1:1", "tcp://localhost:1", "tcp://[::1]:1"] {
        let (_, mut options) = tcp_options();
        options.endpoint = endpoint.to_string();
        options.timeout = Some(Duration::from_millis(50));
        let err = spawn(options).join().unwrap().unwrap_err();
        assert!(
            !matches!(err, ServerError::RemoteEndpoint { .. }),
            "{endpoint}: {err}"
        );
    }
}

#[test]
fn a_first_peer_that_is_not_batsim_is_answered_and_ignored() {
    let adapter = Adapter::start(config(Policy::Fcfs));
    {
        let stray = Peer::connect(&adapter.endpoint);
        let reply = stray.ask_raw(&message(-1.0, vec![]).to_string());
        assert!(
            reply.starts_with("interstice error: not a Batsim message"),
            "{reply}"
        );
        assert!(reply.contains("-1 is not a simulation time"), "{reply}");
        let reply = stray.ask_raw("hello");
        assert!(
            reply.starts_with("interstice error: not a Batsim message"),
            "{reply}"
        );
    }
    let batsim = Peer::connect(&adapter.endpoint);
    assert_eq!(
        batsim.ask(&begins(4, false, "")),
        json!({"now": 0.0, "events": []})
    );
    batsim.ask(&message(5.0, vec![("SIMULATION_ENDS", json!({}))]));
    let (result, _) = adapter.finish();
    assert_eq!(result.expect("Batsim drove the run").messages, 2);
}
