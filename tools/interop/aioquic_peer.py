#!/usr/bin/env python3
"""aioquic interop peer for qchat: an echo server and a matching client.

  server --host H --port P --cert CERT --key KEY --alpn A [--alpn B ...]
  client --host H --port P --alpn A --ca CAFILE [--insecure] [--server-name NAME]
         [--bytes N] [--datagrams K] [--timeout S]

See README.md for the exact echo semantics.
"""

import argparse
import asyncio
import hashlib
import json
import logging
import os
import signal
import ssl
import sys

from cryptography.hazmat.primitives.serialization import load_pem_private_key
from OpenSSL import crypto

from aioquic.asyncio import QuicConnectionProtocol, connect, serve
from aioquic.quic.configuration import QuicConfiguration
from aioquic.quic.events import (
    ConnectionTerminated,
    DatagramFrameReceived,
    HandshakeCompleted,
    StopSendingReceived,
    StreamDataReceived,
    StreamReset,
)

MAX_DATAGRAM_FRAME_SIZE = 1200
DATAGRAM_WAIT = 5.0
EXIT_OK, EXIT_FAIL, EXIT_HANDSHAKE = 0, 1, 2

log = logging.getLogger("aioquic_peer")


def payload(n: int) -> bytes:
    """Deterministic pseudo-random bytes: SHA-256("qchat-interop" || u64be(i)), i = 0, 1, ..."""
    out = bytearray()
    i = 0
    while len(out) < n:
        out += hashlib.sha256(b"qchat-interop" + i.to_bytes(8, "big")).digest()
        i += 1
    return bytes(out[:n])


def peer_accepts_datagram(quic, data: bytes) -> bool:
    """True if the peer's max_datagram_frame_size admits a DATAGRAM frame carrying data."""
    limit = quic._remote_max_datagram_frame_size  # aioquic keeps the peer's value here
    frame_size = 1 + (1 if len(data) < 64 else 2 if len(data) < 16384 else 4) + len(data)
    return limit is not None and frame_size <= limit


def load_private_key(path: str):
    with open(path, "rb") as fp:
        pem = fp.read()
    try:
        return load_pem_private_key(pem, password=None)
    except ValueError:
        # GnuTLS's certtool sometimes writes the EC private scalar with a leading
        # zero (RFC 5915 wants a fixed length); cryptography >= 47 rejects that,
        # OpenSSL (through pyOpenSSL) reads it.
        return crypto.load_privatekey(crypto.FILETYPE_PEM, pem).to_cryptography_key()


def is_client_bidi(stream_id: int) -> bool:
    return stream_id % 4 == 0


# ---------------------------------------------------------------- server


class EchoServerProtocol(QuicConnectionProtocol):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._dead = set()  # streams whose send side may no longer be written

    def quic_event_received(self, event):
        quic = self._quic
        if isinstance(event, StreamDataReceived):
            sid = event.stream_id
            if is_client_bidi(sid) and sid not in self._dead:
                quic.send_stream_data(sid, event.data, end_stream=event.end_stream)
        elif isinstance(event, StreamReset):
            self._dead.add(event.stream_id)
            if is_client_bidi(event.stream_id):
                quic.reset_stream(event.stream_id, event.error_code)
        elif isinstance(event, StopSendingReceived):
            self._dead.add(event.stream_id)  # aioquic already reset our send side
        elif isinstance(event, DatagramFrameReceived):
            if peer_accepts_datagram(quic, event.data):
                quic.send_datagram_frame(event.data)
        elif isinstance(event, HandshakeCompleted):
            log.info("handshake completed, alpn=%s", event.alpn_protocol)
        elif isinstance(event, ConnectionTerminated):
            log.info("connection closed: %#x %s", event.error_code, event.reason_phrase)


async def run_server(args) -> int:
    config = QuicConfiguration(
        is_client=False,
        alpn_protocols=args.alpn,
        max_datagram_frame_size=MAX_DATAGRAM_FRAME_SIZE,
    )
    try:
        config.load_cert_chain(args.cert)
        config.private_key = load_private_key(args.key)
    except (OSError, ValueError, crypto.Error) as exc:
        print(f"server: cannot load certificate/key: {exc}", file=sys.stderr)
        return EXIT_FAIL

    try:
        server = await serve(
            args.host, args.port, configuration=config, create_protocol=EchoServerProtocol
        )
    except OSError as exc:
        print(f"server: cannot listen on {args.host}:{args.port}: {exc}", file=sys.stderr)
        return EXIT_FAIL
    port = server._transport.get_extra_info("sockname")[1]
    print(f"READY {port}", flush=True)

    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()
    server.close()
    return EXIT_OK


# ---------------------------------------------------------------- client


class EchoClientProtocol(QuicConnectionProtocol):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.alpn = None
        self.close_reason = None
        self.handshake_done = self._loop.create_future()  # True, or False if closed first
        self.stream_id = None
        self.echo = bytearray()
        self.echo_done = self._loop.create_future()  # True on FIN, False on reset/close
        self.datagrams = []
        self.datagram_arrived = asyncio.Event()

    def quic_event_received(self, event):
        if isinstance(event, HandshakeCompleted):
            self.alpn = event.alpn_protocol
            self._resolve(self.handshake_done, True)
        elif isinstance(event, StreamDataReceived) and event.stream_id == self.stream_id:
            self.echo += event.data
            if event.end_stream:
                self._resolve(self.echo_done, True)
        elif isinstance(event, StreamReset) and event.stream_id == self.stream_id:
            self._resolve(self.echo_done, False)
        elif isinstance(event, DatagramFrameReceived):
            self.datagrams.append(event.data)
            self.datagram_arrived.set()
        elif isinstance(event, ConnectionTerminated):
            self.close_reason = f"error {event.error_code:#x}: {event.reason_phrase}"
            self._resolve(self.handshake_done, False)
            self._resolve(self.echo_done, False)
            self.datagram_arrived.set()

    @staticmethod
    def _resolve(future, value):
        if not future.done():
            future.set_result(value)


async def exchange(args, result: dict) -> None:
    config = QuicConfiguration(
        is_client=True,
        alpn_protocols=[args.alpn],
        max_datagram_frame_size=MAX_DATAGRAM_FRAME_SIZE,
        server_name=args.server_name or args.host,
    )
    if args.insecure:
        config.verify_mode = ssl.CERT_NONE
    else:
        config.load_verify_locations(cafile=args.ca)

    async with connect(
        args.host,
        args.port,
        configuration=config,
        create_protocol=EchoClientProtocol,
        wait_connected=False,  # we wait on our own future: no stray ConnectionError
    ) as proto:
        proto.transmit()
        if not await proto.handshake_done:
            result["error"] = f"handshake failed: {proto.close_reason}"
            return
        result["handshake"] = True
        result["alpn"] = proto.alpn
        quic = proto._quic

        # Stream: send N bytes + FIN, read the echo to FIN, compare.
        data = payload(args.bytes)
        proto.stream_id = quic.get_next_available_stream_id()
        quic.send_stream_data(proto.stream_id, data, end_stream=True)
        proto.transmit()
        try:
            fin = await proto.echo_done
        finally:  # also report progress on timeout
            result["stream_bytes"] = len(proto.echo)
        result["stream_ok"] = fin and proto.echo == data
        if not result["stream_ok"]:
            result["error"] = proto.close_reason or (
                "stream echo mismatch" if fin else "stream reset by server"
            )
            return

        # Datagrams: best effort, wait up to DATAGRAM_WAIT s for the echoes.
        sent = [f"dgram-{i}".encode() for i in range(args.datagrams)]
        if sent and not all(peer_accepts_datagram(quic, d) for d in sent):
            result["error"] = "server does not accept DATAGRAM frames of this size"
            return
        for d in sent:
            quic.send_datagram_frame(d)
        proto.transmit()
        result["datagrams_sent"] = len(sent)
        deadline = asyncio.get_running_loop().time() + DATAGRAM_WAIT
        while len(set(proto.datagrams)) < len(sent) and proto.close_reason is None:
            proto.datagram_arrived.clear()
            try:
                await asyncio.wait_for(
                    proto.datagram_arrived.wait(),
                    deadline - asyncio.get_running_loop().time(),
                )
            except asyncio.TimeoutError:
                break
        bad = [d for d in proto.datagrams if d not in sent]
        result["datagrams_echoed"] = len(set(proto.datagrams) - set(bad))
        if bad:
            result["error"] = f"unexpected datagram echo {bad[0]!r}"
        elif sent and not result["datagrams_echoed"]:
            result["error"] = "no datagram echoed"
        else:
            result["ok"] = True


async def run_client(args) -> int:
    result = {
        "handshake": False,
        "alpn": None,
        "stream_ok": False,
        "stream_bytes": 0,
        "datagrams_sent": 0,
        "datagrams_echoed": 0,
        "ok": False,
    }
    try:
        await asyncio.wait_for(exchange(args, result), args.timeout)
    except asyncio.TimeoutError:
        stage = "" if result["handshake"] else " during handshake"
        result["error"] = f"timed out after {args.timeout:g} s{stage}"
    except OSError as exc:
        result["error"] = f"{'' if result['handshake'] else 'handshake failed: '}{exc}"

    print(json.dumps(result), flush=True)
    if not result["handshake"]:
        print(f"client: {result['error']}", file=sys.stderr)
        return EXIT_HANDSHAKE
    if not result["ok"]:
        print(f"client: {result.get('error', 'failed')}", file=sys.stderr)
        return EXIT_FAIL
    return EXIT_OK


# ---------------------------------------------------------------- main


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="mode", required=True)

    s = sub.add_parser("server", help="echo server")
    s.add_argument("--host", default="127.0.0.1")
    s.add_argument("--port", type=int, required=True, help="0 picks a free port")
    s.add_argument("--cert", required=True, help="PEM certificate (chain)")
    s.add_argument("--key", required=True, help="PEM private key")
    s.add_argument("--alpn", action="append", required=True, help="repeatable")

    c = sub.add_parser("client", help="echo client / checker")
    c.add_argument("--host", default="127.0.0.1")
    c.add_argument("--port", type=int, required=True)
    c.add_argument("--alpn", required=True)
    c.add_argument("--ca", help="PEM CA file to verify the server certificate")
    c.add_argument("--insecure", action="store_true", help="skip certificate verification")
    c.add_argument("--server-name", help="name to verify (and SNI); default: --host")
    c.add_argument("--bytes", type=int, default=100000)
    c.add_argument("--datagrams", type=int, default=3)
    c.add_argument("--timeout", type=float, default=20.0)

    for q in (s, c):
        q.add_argument("-v", "--verbose", action="store_true", help="log to stderr")

    args = p.parse_args(argv)
    if args.mode == "client":
        if not args.ca and not args.insecure:
            p.error("client needs --ca CAFILE or --insecure")
        if args.ca and not args.insecure and not os.path.isfile(args.ca):
            p.error(f"--ca {args.ca}: no such file")
        if args.bytes < 0 or args.datagrams < 0 or args.timeout <= 0:
            p.error("--bytes/--datagrams must be >= 0 and --timeout > 0")
    return args


def main(argv=None) -> int:
    # A parent test runner may start us from a thread that blocks every signal; the mask is
    # inherited, and SIGTERM must still stop the server.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})
    args = parse_args(argv)
    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.WARNING,
        format="%(name)s %(levelname)s %(message)s",
    )
    return asyncio.run(run_server(args) if args.mode == "server" else run_client(args))


if __name__ == "__main__":
    sys.exit(main())
