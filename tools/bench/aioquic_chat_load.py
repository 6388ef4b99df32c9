#!/usr/bin/env python3
"""An independent qchat load driver: N aioquic clients in R rooms, open-loop room messages.

The same load as `chat-bot load` (Sources/ChatBot): client i joins room <prefix>(i mod R);
the k-th message of the run is due at start + k / rate, from the moment every client has
joined to the end of the warm-up and the measured window; the senders take turns; each
message's latency is taken at every receiver from its intended send time (no coordinated
omission); then a drain waits for what is still on its way. Acks are counted apart from
deliveries. The peer is aioquic, not our engine, with aioquic's own acknowledgement behaviour
(an ACK within about 1 ms of every ack-eliciting packet), and it speaks qchat's wire protocol
(/work/shared/PROTOCOL.md, docs/PROTOCOL.md) as written: it doubles as a conformance check of
the server, and every deviation it sees is counted under "conformance" and fails the run.

Standard error carries "connected" once every client has joined, "measuring" when the
measured window opens, "draining" when it closes and "drained" when the drain is over, as
chat-bot load's does (scripts/bench-lib.sh measures the server's CPU from "connected" to
"drained"), standard output one summary line, --json FILE the report with the keys of chat-bot
load's report.
Exit status: 0 when every client joined and every message sent was acknowledged and delivered
once, in order, to every other member of its room, with no protocol deviation; else 1.
"""

import argparse
import asyncio
import json
import math
import resource
import sys
import time
import uuid

from aioquic.asyncio import QuicConnectionProtocol, connect
from aioquic.quic.configuration import QuicConfiguration
from aioquic.quic.events import (
    ConnectionTerminated,
    DatagramFrameReceived,
    StopSendingReceived,
    StreamDataReceived,
    StreamReset,
)

ALPN = "qchat/1"
CHAT_STREAM = 0  # PROTOCOL.md section 2: the first client bidirectional stream
PRESENCE_STREAM = 4  # the second
MAX_DATAGRAM_FRAME_SIZE = 1200  # section 1: both sides advertise it
IDLE_TIMEOUT = 30.0  # section 1
KEEPALIVE_INTERVAL = 10.0  # section 1: a connected client PINGs at least this often
MAX_MESSAGE_BYTES = 65536  # section 4: one message on a stream, LF included
NAME = "aioquic_chat_load"


def log(text):
    print(f"{NAME}: {text}", file=sys.stderr, flush=True)


def now_ns():
    # asyncio's loop.time() is time.monotonic(): timers and stamps share one clock.
    return time.monotonic_ns()


def encode(message):
    """One message on a stream: compact JSON and LF (section 3)."""
    return json.dumps(message, separators=(",", ":"), ensure_ascii=False).encode() + b"\n"


def load_text(slot, seq, intended, size):
    """chat-bot load's text (LoadMessageText.swift): L<slot>.<seq>.<intended ns>, padded with x."""
    header = f"L{slot}.{seq}.{intended}"
    padding = size - len(header) - 1
    return header + " " + "x" * padding if padding > 0 else header


def parse_load_text(text):
    """(slot, seq, intended ns) of a load text, or None."""
    if not text.startswith("L"):
        return None
    parts = text[1:].split(" ", 1)[0].split(".")
    if len(parts) != 3 or not all(part.isdigit() for part in parts):
        return None
    return int(parts[0]), int(parts[1]), int(parts[2])


class Conformance:
    """Deviations from the wire protocol the server showed, by kind, with a first example."""

    def __init__(self):
        self.counts = {}
        self.examples = {}

    def deviation(self, kind, example):
        self.counts[kind] = self.counts.get(kind, 0) + 1
        if kind not in self.examples:
            self.examples[kind] = str(example)[:300]
            log(f"protocol deviation: {kind}: {self.examples[kind]}")

    @property
    def total(self):
        return sum(self.counts.values())


class StreamFramer:
    """Section 3's framing on one receiving stream: an object and an LF each, but receivers also
    accept objects back to back without LF, split across any number of frames or several in one.
    A server writes the LF (it is an encoder), so a missing one is recorded as a deviation."""

    def __init__(self, stream_name, conformance):
        self.stream_name = stream_name
        self.conformance = conformance
        self.buffer = bytearray()
        self.decoder = json.JSONDecoder()
        self.awaiting_lf = False  # an object was read without its LF yet

    def feed(self, data):
        self.buffer += data
        objects = []
        while True:
            if self.awaiting_lf and self.buffer:
                if self.buffer[0] == 0x0A:
                    del self.buffer[0]
                else:
                    self.conformance.deviation("message not followed by LF", f"{self.stream_name}: {bytes(self.buffer[:80])!r}")
                self.awaiting_lf = False
            end = self.buffer.find(b"\n")
            if end >= 0:
                line = bytes(self.buffer[:end])
                del self.buffer[: end + 1]
                objects += self._objects_in(line, complete=True)
                continue
            # No LF (yet): an object that is complete already is read now, its LF expected next.
            if len(self.buffer) > MAX_MESSAGE_BYTES:
                self.conformance.deviation("message over 65536 bytes", f"{self.stream_name}: {bytes(self.buffer[:80])!r}")
                self.buffer.clear()
            elif self.buffer.strip():
                found = self._objects_in(bytes(self.buffer), complete=False)
                if found:
                    objects += found
                    self.awaiting_lf = True
            return objects

    def finished(self):
        if self.awaiting_lf:
            self.conformance.deviation("message not followed by LF", f"{self.stream_name}: at the end of the stream")
        if self.buffer.strip():
            self.conformance.deviation("unterminated message at the end of a stream", bytes(self.buffer[:80]))

    def _objects_in(self, raw, complete):
        """The objects in `raw`; with `complete` False, only as many whole ones as there are, and
        what they took is removed from the buffer."""
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as error:
            if complete:
                self.conformance.deviation("invalid UTF-8", f"{self.stream_name}: {error}")
            return []
        objects = []
        index = 0
        while True:
            while index < len(text) and text[index] in " \t\r\n":
                index += 1
            if index == len(text):
                break
            try:
                value, index = self.decoder.raw_decode(text, index)
            except json.JSONDecodeError as error:
                if complete:
                    self.conformance.deviation("not JSON", f"{self.stream_name}: {error}: {text[:120]!r}")
                break
            if objects:
                self.conformance.deviation("messages back to back without LF", f"{self.stream_name}: {text[:120]!r}")
            objects.append(value)
        if not complete and objects:
            del self.buffer[: len(text[:index].encode("utf-8"))]
        return objects


class Client:
    """One simulated user: a slot, a nick, a room and what it sent and received."""

    def __init__(self, slot, nick, room):
        self.slot = slot
        self.wanted_nick = nick
        self.nick = None  # as the server's welcome assigned it
        self.room = room
        self.peer = str(uuid.uuid4()).upper()
        self.protocol = None
        self.state = "connecting"  # connecting, joined, failed, closing
        self.welcomed = False
        self.roster = None
        self.joined_seq = None
        self.joined = None  # a future, set at its own `joined`
        self.next_seq = 0  # per-slot sequence of its load messages
        self.seen_ids = set()
        self.last_seq_from_slot = {}
        self.last_room_seq = 0
        self.keepalive = None
        self.close_reason = None  # why the connection ended, when it did


class ChatProtocol(QuicConnectionProtocol):
    """The client's end of one QUIC connection: aioquic's protocol with datagrams counted."""

    def __init__(self, *args, run, client, **kwargs):
        super().__init__(*args, **kwargs)
        self.run = run
        self.client = client
        self.framers = {
            CHAT_STREAM: StreamFramer(f"{client.wanted_nick} chat", run.conformance),
            PRESENCE_STREAM: StreamFramer(f"{client.wanted_nick} presence", run.conformance),
        }

    def connection_made(self, transport):
        super().connection_made(CountingTransport(transport, self.run))

    def datagram_received(self, data, addr):
        self.run.datagrams_received += 1
        super().datagram_received(data, addr)

    def send_message(self, stream_id, message):
        self._quic.send_stream_data(stream_id, encode(message))
        self.transmit()

    def quic_event_received(self, event):
        run = self.run
        if isinstance(event, StreamDataReceived):
            framer = self.framers.get(event.stream_id)
            if framer is None:
                run.conformance.deviation("data on a stream the client did not open", f"stream {event.stream_id}")
                return
            for message in framer.feed(event.data):
                run.received(self.client, event.stream_id, message)
            if event.end_stream:
                framer.finished()
                if self.client.state != "closing":
                    run.conformance.deviation("server finished a chat or presence stream", f"stream {event.stream_id}")
        elif isinstance(event, (StreamReset, StopSendingReceived)):
            if self.client.state != "closing":
                run.conformance.deviation(f"server sent {type(event).__name__}", f"stream {event.stream_id} code {event.error_code:#x}")
        elif isinstance(event, DatagramFrameReceived):
            run.typing_received += 1
        elif isinstance(event, ConnectionTerminated):
            run.connection_ended(self.client, event)
        # Not handed on to QuicConnectionProtocol: it would wrap each stream in an asyncio
        # StreamWriter whose garbage collection finishes the stream (FIN).


class CountingTransport:
    """The UDP transport with every datagram the driver sends counted (the ACKs among them).
    With --hold-sends, datagrams wait and leave together, all clients' at once (a diagnosis:
    what the server costs when the members' ACKs reach it in bursts, as chat-bot load's do)."""

    def __init__(self, transport, run):
        self._transport = transport
        self._run = run

    def sendto(self, data, addr=None):
        run = self._run
        run.datagrams_sent += 1
        if run.args.hold_sends <= 0:
            self._transport.sendto(data, addr)
            return
        run.held.append((self._transport, data, addr))
        if len(run.held) == 1:
            run.loop.call_later(run.args.hold_sends / 1000, run.send_held)

    def __getattr__(self, name):
        return getattr(self._transport, name)


def percentile(sorted_values, p):
    """Nearest rank."""
    if not sorted_values:
        return 0.0
    rank = max(1, math.ceil(p / 100 * len(sorted_values)))
    return sorted_values[rank - 1]


def distribution(values_ns):
    values = sorted(values_ns)

    def ms(ns):
        return round(ns / 1e6, 2)

    return {
        "count": len(values),
        "p50": ms(percentile(values, 50)),
        "p90": ms(percentile(values, 90)),
        "p99": ms(percentile(values, 99)),
        "p99_9": ms(percentile(values, 99.9)),
        "max": ms(values[-1] if values else 0),
        "mean": ms(sum(values) / len(values) if values else 0),
    }


class LoadRun:
    def __init__(self, args):
        self.args = args
        self.loop = asyncio.get_running_loop()
        self.conformance = Conformance()
        self.clients = [
            Client(slot, f"{args.nick_prefix}{slot}", f"{args.room_prefix}{slot % args.rooms}") for slot in range(args.clients)
        ]
        self.members = {}  # room -> joined clients
        self.started = now_ns()
        self.connect_times = []
        self.connect_failures = []
        self.joined_count = 0
        self.all_joined = asyncio.Event()
        self.stop = asyncio.Event()
        self.phase = "connecting"
        self.sent = {}  # id -> [sender client, intended ns, measured, receivers so far, ack seq]
        self.sent_count = 0
        self.sent_measured = 0
        self.acknowledged = 0
        self.acknowledged_measured = 0
        self.ack_latency = []
        self.latency = []
        self.delivered_measured = 0
        self.received_all = 0
        self.duplicates = 0
        self.out_of_order = 0
        self.errors = {}
        self.closed_unexpectedly = []
        self.typing_received = 0
        self.datagrams_sent = 0
        self.datagrams_received = 0
        self.sender_cursor = 0
        self.held = []  # datagrams waiting for --hold-sends
        self.worst_send_lag = 0

    # --- connecting

    def configuration(self):
        config = QuicConfiguration(
            is_client=True,
            alpn_protocols=[ALPN],
            max_datagram_frame_size=MAX_DATAGRAM_FRAME_SIZE,
            idle_timeout=IDLE_TIMEOUT,
            server_name=self.args.server_name,
        )
        config.load_verify_locations(cafile=self.args.ca)
        return config

    async def client_life(self, client, gate):
        args = self.args
        try:
            async with gate:
                started = now_ns()
                client.joined = self.loop.create_future()
                async with asyncio.timeout(args.connect_timeout):
                    protocol_factory = lambda *a, **k: ChatProtocol(*a, run=self, client=client, **k)
                    connection = connect(args.host, args.port, configuration=self.configuration(), create_protocol=protocol_factory)
                    protocol = await connection.__aenter__()
                    client.protocol = protocol
                    self.hello(client)
                    await client.joined
                self.connect_times.append(now_ns() - started)
        except Exception as error:  # a failed handshake or join ends this client, not the run
            client.state = "failed"
            if client.protocol is not None:
                client.protocol.close()
            reason = client.close_reason or f"{client.wanted_nick}: {type(error).__name__} {error}"
            self.connect_failures.append(reason)
            log(f"cannot connect {reason}")
            self.first_connection_ended()
            return
        self.first_connection_ended()
        client.keepalive = self.loop.create_task(self.keep_alive(client))
        await self.stop.wait()
        client.state = "closing"
        client.keepalive.cancel()
        try:
            async with asyncio.timeout(5):
                await connection.__aexit__(None, None, None)  # CONNECTION_CLOSE NO_ERROR, closing period
        except Exception:
            pass

    def hello(self, client):
        """Section 3: the first message on the chat stream is `join` with the wanted nick and the
        peer id; right after it the client opens the presence stream with its status."""
        protocol = client.protocol
        chat = protocol._quic.get_next_available_stream_id()
        if chat != CHAT_STREAM:
            raise RuntimeError(f"aioquic chose stream {chat} for the chat stream")
        protocol._quic.send_stream_data(chat, encode({"type": "join", "sender": client.wanted_nick, "peer": client.peer,
                                                      "room": client.room, "text": ""}))
        presence = protocol._quic.get_next_available_stream_id()
        if presence != PRESENCE_STREAM:
            raise RuntimeError(f"aioquic chose stream {presence} for the presence stream")
        protocol._quic.send_stream_data(presence, encode({"type": "status", "text": "online", "sender": ""}))
        protocol.transmit()

    async def keep_alive(self, client):
        while True:
            await asyncio.sleep(KEEPALIVE_INTERVAL)
            client.protocol._quic.send_ping(0)
            client.protocol.transmit()

    def send_held(self):
        held, self.held = self.held, []
        for transport, data, addr in held:
            transport.sendto(data, addr)

    def first_connection_ended(self):
        self.joined_count = sum(1 for client in self.clients if client.state == "joined")
        done = sum(1 for client in self.clients if client.state in ("joined", "failed"))
        if done == len(self.clients):
            self.all_joined.set()

    def connection_ended(self, client, event):
        if client.state == "closing":
            return
        reason = f"{client.nick or client.wanted_nick}: code {event.error_code:#x} {event.reason_phrase!r}"
        client.close_reason = reason
        if client.state == "joined":
            self.closed_unexpectedly.append(reason)
            log(f"connection closed by the server: {reason}")
        client.state = "failed"
        if client.joined is not None and not client.joined.done():
            client.joined.set_exception(ConnectionError(reason))

    # --- receiving

    def received(self, client, stream_id, message):
        conformance = self.conformance
        if not isinstance(message, dict) or not isinstance(message.get("type"), str):
            conformance.deviation("message without a string `type`", message)
            return
        kind = message["type"]
        # Section 3: encoders always write type, text and sender.
        for field in ("text", "sender"):
            if not isinstance(message.get(field), str):
                conformance.deviation(f"`{kind}` without a string `{field}`", message)
        if stream_id == PRESENCE_STREAM:
            return self.presence(client, message)
        if not client.welcomed:
            if kind != "welcome":
                conformance.deviation("first message on the chat stream is not `welcome`", message)
                return
            return self.welcome(client, message)
        if message.get("replay") is True:
            return  # the room's stored events before this client's own `joined`
        if kind == "msg":
            self.delivered(client, message)
        elif kind == "ack":
            self.acknowledged_by(client, message)
        elif kind == "joined":
            if client.state == "connecting" and message.get("sender") == client.nick and message.get("room") == client.room:
                self.own_join(client, message)
        elif kind == "error":
            code = message.get("code") if isinstance(message.get("code"), str) else "?"
            self.errors[code] = self.errors.get(code, 0) + 1
            log(f"error from the server to {client.nick}: {message}")
        elif kind == "welcome":
            conformance.deviation("a second `welcome`", message)
        # Anything else (left, nick, other types) is not this load's concern: unknown types are ignored.

    def welcome(self, client, message):
        client.welcomed = True
        nick = message.get("sender")
        if not isinstance(nick, str) or not nick:
            self.conformance.deviation("`welcome` without the assigned nick in `sender`", message)
            nick = client.wanted_nick
        if message.get("peer") != client.peer:
            self.conformance.deviation("`welcome` does not carry the client's peer id", message)
        client.nick = nick

    def own_join(self, client, message):
        seq, ts = message.get("seq"), message.get("ts")
        if not isinstance(seq, int) or not isinstance(ts, int):
            self.conformance.deviation("own `joined` without integer seq and ts", message)
            seq = 0
        client.state = "joined"
        client.joined_seq = seq
        client.last_room_seq = seq
        self.members.setdefault(client.room, []).append(client)
        if not client.joined.done():
            client.joined.set_result(None)

    def presence(self, client, message):
        if message["type"] == "roster" and message.get("room") == client.room:
            members = message.get("members")
            if not isinstance(members, list) or not all(isinstance(member, str) for member in members):
                self.conformance.deviation("`roster` without a list of member nicks", message)
            client.roster = members

    def acknowledged_by(self, client, message):
        entry = self.sent.get(message.get("id"))
        if entry is None or entry[0] is not client:
            self.conformance.deviation("`ack` of an id this client did not send", message)
            return
        if entry[4] is not None:
            self.conformance.deviation("a second `ack` of one message", message)
            return
        seq, ts = message.get("seq"), message.get("ts")
        if not isinstance(seq, int) or not isinstance(ts, int) or message.get("room") != client.room:
            self.conformance.deviation("`ack` without its room, integer seq and ts", message)
        entry[4] = seq
        self.acknowledged += 1
        if entry[2]:
            self.acknowledged_measured += 1
            self.ack_latency.append(now_ns() - entry[1])

    def delivered(self, client, message):
        received_at = now_ns()
        self.received_all += 1
        if client.state not in ("joined", "closing"):
            return
        text, seq, message_id = message.get("text"), message.get("seq"), message.get("id")
        load = parse_load_text(text) if isinstance(text, str) else None
        entry = self.sent.get(message_id)
        if load is None or entry is None:
            self.conformance.deviation("`msg` this load did not send", message)
            return
        sender, intended, measured = entry[0], entry[1], entry[2]
        if sender is client:
            self.conformance.deviation("`msg` echoed to its sender", message)
            return
        if (message.get("room") != client.room or message.get("sender") != sender.nick or not isinstance(seq, int)
                or not isinstance(message.get("ts"), int)):
            self.conformance.deviation("`msg` without its room, the sender's nick, integer seq and ts", message)
        if text != load_text(load[0], load[1], load[2], self.args.size) or load[0] != sender.slot or load[2] != intended:
            self.conformance.deviation("`msg` text differs from what was sent", message)
        if isinstance(seq, int):
            if seq <= client.last_room_seq:
                self.conformance.deviation("room seq not increasing at a receiver", message)
            client.last_room_seq = max(client.last_room_seq, seq)
        if message_id in client.seen_ids:
            self.duplicates += 1
            return
        client.seen_ids.add(message_id)
        entry[3] += 1
        last = client.last_seq_from_slot.get(load[0])
        if last is not None and load[1] <= last:
            self.out_of_order += 1
        else:
            client.last_seq_from_slot[load[0]] = load[1]
        if measured:
            self.delivered_measured += 1
            self.latency.append(received_at - intended)

    # --- the open-loop schedule (OpenLoopSchedule.swift, uniform arrivals)

    def begin(self):
        now = now_ns()
        self.run_start = now
        self.measure_start = now + int(self.args.warmup * 1e9)
        self.measure_end = self.measure_start + int(self.args.duration * 1e9)
        self.issued = 0
        self.phase = "running"
        if self.args.warmup > 0:
            self.loop.call_at(self.measure_start / 1e9, lambda: log("measuring"))
        else:
            log("measuring")
        self.pump()

    def due(self, index):
        return self.run_start + round(index * 1e9 / self.args.rate)

    def pump(self):
        if self.phase != "running" or self.args.rate <= 0:
            return
        now = now_ns()
        touched = set()
        while True:
            intended = self.due(self.issued)
            if intended >= self.measure_end or intended > now:
                break
            self.issued += 1
            self.worst_send_lag = max(self.worst_send_lag, now - intended)
            client = self.next_sender()
            if client is not None:
                self.send_room_message(client, intended)
                touched.add(client)
        for client in touched:
            client.protocol.transmit()
        intended = self.due(self.issued)
        if intended < self.measure_end:
            self.loop.call_at(intended / 1e9, self.pump)

    def next_sender(self):
        for _ in range(len(self.clients)):
            client = self.clients[self.sender_cursor % len(self.clients)]
            self.sender_cursor += 1
            if client.state == "joined":
                return client
        return None

    def send_room_message(self, client, intended):
        client.next_seq += 1
        measured = self.measure_start <= intended < self.measure_end
        message_id = str(uuid.uuid4())  # section 3: a client-chosen unique id, a UUID
        text = load_text(client.slot, client.next_seq, intended, self.args.size)
        self.sent[message_id] = [client, intended, measured, 0, None]
        self.sent_count += 1
        if measured:
            self.sent_measured += 1
        client.protocol._quic.send_stream_data(
            CHAT_STREAM, encode({"type": "msg", "room": client.room, "text": text, "id": message_id, "sender": ""}))

    def tally(self):
        """(expected, lost, unacknowledged) over every message sent, warm-up included."""
        expected = lost = unacknowledged = 0
        for sender, _, _, receivers, ack_seq in self.sent.values():
            others = len([member for member in self.members.get(sender.room, []) if member is not sender])
            expected += others
            lost += max(0, others - receivers)
            if ack_seq is None:
                unacknowledged += 1
        return expected, lost, unacknowledged

    async def drain(self):
        deadline = self.loop.time() + self.args.drain
        while self.loop.time() < deadline:
            _, lost, unacknowledged = self.tally()
            if lost == 0 and unacknowledged == 0:
                return
            await asyncio.sleep(0.05)

    # --- the run

    async def run(self):
        args = self.args
        gate = asyncio.Semaphore(args.connect_parallel)
        lives = [self.loop.create_task(self.client_life(client, gate)) for client in self.clients]
        await self.all_joined.wait()
        self.connect_seconds = (now_ns() - self.started) / 1e9
        log(f"connected {self.joined_count}/{len(self.clients)} clients in {self.connect_seconds:.2f} s")
        self.window_start = (self.datagrams_sent, self.datagrams_received, self.received_all, self.acknowledged, now_ns())
        if self.joined_count > 0:
            self.begin()
            await asyncio.sleep(max(0.0, (self.measure_end - now_ns()) / 1e9))
            self.phase = "draining"
            log("draining")
            await self.drain()
        self.window_end = (self.datagrams_sent, self.datagrams_received, self.received_all, self.acknowledged, now_ns())
        report = self.report()
        print(self.summary(report), flush=True)
        if args.json:
            with open(args.json, "w") as out:
                out.write(json.dumps(report, indent=2) + "\n")
        log("drained; closing the connections")
        self.stop.set()
        await asyncio.gather(*lives, return_exceptions=True)
        return 0 if report["ok"] else 1

    def report(self):
        args = self.args
        expected, lost, unacknowledged = self.tally()
        usage = resource.getrusage(resource.RUSAGE_SELF)
        failures = len(self.clients) - self.joined_count
        sent_d, received_d, deliveries_d, acks_d, start_ns = self.window_start
        sent_e, received_e, deliveries_e, acks_e, end_ns = self.window_end
        window_deliveries = deliveries_e - deliveries_d
        rosters_complete = all(client.roster is not None and client.nick in client.roster
                               for client in self.clients if client.state in ("joined", "closing"))
        if not rosters_complete:
            self.conformance.deviation("no `roster` naming the client itself on its presence stream", "after the join")
        ok = (failures == 0 and lost == 0 and unacknowledged == 0 and self.duplicates == 0 and self.out_of_order == 0
              and not self.closed_unexpectedly and not self.errors and self.conformance.total == 0)
        return {
            "ok": ok,
            "driver": f"aioquic {aioquic_version()}",
            "hold_sends_ms": args.hold_sends,
            "parameters": {
                "server": f"{args.host}:{args.port}", "clients": args.clients, "rooms": args.rooms, "rate": args.rate,
                "arrivals": "uniform", "size": args.size, "duration_s": args.duration, "warmup_s": args.warmup,
            },
            "connect": {
                "started": len(self.clients), "joined": self.joined_count, "failed": failures,
                "seconds": round(self.connect_seconds, 2), "ms": distribution(self.connect_times),
                "failures": self.connect_failures[:5],
            },
            "messages": {
                "sent": self.sent_count, "sent_measured": self.sent_measured, "acknowledged": self.acknowledged,
                "unacknowledged": unacknowledged, "unacknowledged_measured": self.sent_measured - self.acknowledged_measured,
                "errors": dict(sorted(self.errors.items())), "worst_send_lag_ms": round(self.worst_send_lag / 1e6, 2),
                "ack_latency_ms": distribution(self.ack_latency),
            },
            "deliveries": {
                "expected": expected, "delivered": self.delivered_measured,
                "per_second": round(self.delivered_measured / args.duration, 1), "received_all": self.received_all,
                "lost": lost, "duplicated": self.duplicates, "out_of_order": self.out_of_order,
                "latency_ms": distribution(self.latency),
            },
            # From "connected" to "drained", the stretch the benchmark charges to the server.
            "datagrams": {
                "seconds": round((end_ns - start_ns) / 1e9, 2), "sent": sent_e - sent_d, "received": received_e - received_d,
                "deliveries": window_deliveries, "acks": acks_e - acks_d,
                "sent_per_delivery": round((sent_e - sent_d) / window_deliveries, 3) if window_deliveries else 0,
                "received_per_delivery": round((received_e - received_d) / window_deliveries, 3) if window_deliveries else 0,
            },
            "conformance": {
                "deviations": self.conformance.total, "kinds": dict(sorted(self.conformance.counts.items())),
                "examples": dict(sorted(self.conformance.examples.items())),
            },
            "typing_received": self.typing_received,
            "closed_unexpectedly": len(self.closed_unexpectedly),
            "close_reasons": self.closed_unexpectedly[:5],
            "bot_cpu_seconds": round(usage.ru_utime + usage.ru_stime, 2),
        }

    def summary(self, report):
        deliveries, latency = report["deliveries"], report["deliveries"]["latency_ms"]
        return (f"result: {'ok' if report['ok'] else 'FAILED'}; {report['connect']['joined']}/{self.args.clients} joined; "
                f"sent {report['messages']['sent']} ({report['messages']['sent_measured']} measured), "
                f"acknowledged {report['messages']['acknowledged']}; {deliveries['per_second']} deliveries/s, "
                f"{deliveries['delivered']} measured of {deliveries['received_all']} received; lost {deliveries['lost']}, "
                f"duplicated {deliveries['duplicated']}, out of order {deliveries['out_of_order']}; "
                f"latency p50 {latency['p50']} / p99 {latency['p99']} / max {latency['max']} ms; "
                f"protocol deviations {report['conformance']['deviations']}; driver CPU {report['bot_cpu_seconds']} s")


def aioquic_version():
    from importlib.metadata import version

    return version("aioquic")


def arguments(argv):
    parser = argparse.ArgumentParser(prog="aioquic_chat_load.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=4433)
    parser.add_argument("--ca", required=True, help="the CA that signs the server certificate (verified)")
    parser.add_argument("--server-name", default="localhost", help="the name checked in the server certificate")
    parser.add_argument("--clients", type=int, default=20)
    parser.add_argument("--rooms", type=int, default=1)
    parser.add_argument("--rate", type=float, default=100.0, help="room messages a second, all clients together")
    parser.add_argument("--size", type=int, default=100, help="text bytes per message")
    parser.add_argument("--duration", type=float, default=10.0, help="measured seconds")
    parser.add_argument("--warmup", type=float, default=2.0, help="seconds of load before measuring")
    parser.add_argument("--drain", type=float, default=5.0, help="at most this long for outstanding deliveries")
    parser.add_argument("--connect-parallel", type=int, default=100)
    parser.add_argument("--connect-timeout", type=float, default=60.0)
    parser.add_argument("--nick-prefix", default="aq")
    parser.add_argument("--room-prefix", default="aq")
    parser.add_argument("--json", help="also write the report as JSON")
    parser.add_argument("--hold-sends", type=float, default=0.0, metavar="MS",
                        help="diagnosis only: hold every datagram up to MS ms and send all clients' together")
    args = parser.parse_args(argv)
    if args.clients < 1 or not 1 <= args.rooms <= args.clients:
        parser.error("--clients must be at least 1 and --rooms from 1 to --clients")
    if not 1 <= args.size <= 4096:
        parser.error("--size must be from 1 to 4096 (section 4)")
    if args.rate < 0 or args.duration <= 0 or args.warmup < 0 or args.drain < 0 or args.connect_parallel < 1:
        parser.error("--rate, --warmup and --drain must not be negative, --duration and --connect-parallel positive")
    return args


def main(argv):
    args = arguments(argv)

    async def go():
        return await LoadRun(args).run()

    return asyncio.run(go())


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
