//! `interstice batsim` against local peers that are not its Batsim: any
//! process may connect to its endpoint. A connection that does not speak
//! ZeroMQ, a peer whose first message is not a Batsim message, and a second
//! peer once the simulation runs are answered (when they ask) and ignored;
//! only the first Batsim peer drives the run.

mod protocol_support;

use interstice_batsim::protocol::{serve, ServerOptions, Session};
use interstice_core::Policy;
use protocol_support::{begins, config, message, submitted, Adapter, Peer};
use serde_json::json;
use std::io::Write;
use std::time::Duration;

#[test]
fn strays_on_tcp_neither_abort_nor_end_a_running_simulation() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let endpoint = format!("tcp://127.0.0.1:{port}");
    let options = ServerOptions {
        endpoint: endpoint.clone(),
        timeout: Some(Duration::from_secs(10)),
        driver_uid: None,
    };
    let server = std::thread::spawn(move || {
        let mut session = Session::new(config(Policy::Fcfs));
        let result = serve(&options, &mut session);
        (result, session)
    });
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
    // A ZeroMQ peer that sends garbage, then tries to end the simulation, then leaves.
    {
        let stray = Peer::connect(&endpoint);
        let reply = stray.ask_raw("{not json");
        assert!(reply.starts_with("interstice error: another Batsim"), "{reply}");
        let reply = stray.ask_raw(&message(1.0, vec![("SIMULATION_ENDS", json!({}))]).to_string());
        assert!(reply.starts_with("interstice error: another Batsim"), "{reply}");
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
    let (result, _) = server.join().unwrap();
    let report = result.expect("the strays did not end the run");
    assert_eq!(report.messages, 4);
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
