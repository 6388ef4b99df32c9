#!/usr/bin/env python3
"""A stand-in for a version 1.2 qchat server, for chat-client's tests (issue 28): today's
chat-server does not speak 1.2 yet, so this one plays the part the tests need, on real QUIC
(aioquic) with the test certificates.

  version12_server.py --cert CERT --key KEY --welcome JSON

It prints `READY PORT`, then every message a client sends as `GOT <json>` (one line each). It
answers the first `join` with the `welcome` given (the nick filled in) and the client's own
`joined`; later `join`s with the own `joined`; `msg`, `dm`, `edit`, `redact`, `react` and
`unreact` with an `ack` carrying the next seq; `history` with `history-end` (room or `with`).
Each line the test writes to its standard input is a JSON message sent to every client on its
chat stream.
"""

import argparse
import asyncio
import json
import sys

from aioquic.asyncio import QuicConnectionProtocol, serve
from aioquic.quic.configuration import QuicConfiguration
from aioquic.quic.events import StreamDataReceived

sys.path.insert(0, __import__("os").path.join(__import__("os").path.dirname(__file__), "../../tools/interop"))
from aioquic_peer import load_private_key  # noqa: E402

CLIENTS = []
SEQ = [100]


class Version12Protocol(QuicConnectionProtocol):
    def __init__(self, *args, welcome=None, **kwargs):
        super().__init__(*args, **kwargs)
        self.buffers = {}
        self.chat = None
        self.nick = None
        self.welcome = welcome

    def send(self, message):
        if self.chat is None:
            return
        self._quic.send_stream_data(self.chat, (json.dumps(message) + "\n").encode())
        self.transmit()

    def quic_event_received(self, event):
        if not isinstance(event, StreamDataReceived):
            return
        data = self.buffers.get(event.stream_id, b"") + event.data
        *lines, rest = data.split(b"\n")
        self.buffers[event.stream_id] = rest
        for line in lines:
            if not line.strip():
                continue
            message = json.loads(line)
            print("GOT " + json.dumps(message, sort_keys=True), flush=True)
            if self.chat is None and message.get("type") == "join":
                self.chat = event.stream_id
                CLIENTS.append(self)
            if event.stream_id == self.chat:
                self.answer(message)

    def answer(self, message):
        kind = message.get("type")
        room = message.get("room", "lobby")
        if kind == "join":
            if self.nick is None:
                self.nick = message.get("sender")
                welcome = dict(self.welcome)
                welcome.update({"type": "welcome", "sender": self.nick, "account": self.nick, "peer": message.get("peer", "")})
                self.send(welcome)
            SEQ[0] += 1
            self.send({"type": "joined", "room": room, "sender": self.nick, "text": "", "seq": SEQ[0], "ts": 1765000000000})
        elif kind in ("msg", "dm", "edit", "redact", "react", "unreact"):
            SEQ[0] += 1
            ack = {"type": "ack", "text": "", "sender": "", "id": message.get("id"), "seq": SEQ[0], "ts": 1765000000000}
            if "room" in message:
                ack["room"] = message["room"]
            self.send(ack)
        elif kind == "history":
            end = {"type": "history-end", "text": "", "sender": ""}
            if "with" in message:
                end["with"] = message["with"]
            else:
                end["room"] = room
            self.send(end)


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--cert", required=True)
    parser.add_argument("--key", required=True)
    parser.add_argument("--welcome", required=True)
    args = parser.parse_args()
    welcome = json.loads(args.welcome)
    config = QuicConfiguration(is_client=False, alpn_protocols=["qchat/1"], max_datagram_frame_size=1200)
    config.load_cert_chain(args.cert)
    config.private_key = load_private_key(args.key)
    server = await serve("127.0.0.1", 0, configuration=config,
                         create_protocol=lambda *a, **k: Version12Protocol(*a, welcome=welcome, **k))
    print(f"READY {server._transport.get_extra_info('sockname')[1]}", flush=True)
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    while True:
        line = await reader.readline()
        if not line:
            break
        if line.strip():
            for client in CLIENTS:
                client.send(json.loads(line))
    server.close()


if __name__ == "__main__":
    asyncio.run(main())
