#!/usr/bin/env python3
"""How long a node takes to follow its rooms again after a Redis restart (issue 26, item 8).

Does on a real redis-server what a node's RedisClient does when its connections come back: on
the pub/sub connection one SUBSCRIBE per room channel (`{room:R}:live`), pipelined, each
confirmed; on the command connection one fill per room (XRANGE of the events after the last
seq it delivered), at most 65,536 in flight (RedisLimits.maxPendingCommands). Before, it fills
ROOMS rooms with EVENTS events each and restarts Redis on its AOF (appendfsync always), timing
the restart too. Prints one line per phase.

    scripts/bench-resubscribe.py ROOMS [EVENTS]      (needs redis-server on PATH)
"""
import os, shutil, socket, subprocess, sys, tempfile, time

MAX_PENDING = 65_536


def command(*args):
    out = [b"*%d\r\n" % len(args)]
    for arg in args:
        data = arg if isinstance(arg, bytes) else str(arg).encode()
        out.append(b"$%d\r\n%s\r\n" % (len(data), data))
    return b"".join(out)


class Reader:
    """Counts complete RESP replies in a byte stream (enough to pace a pipeline)."""

    def __init__(self, sock):
        self.sock, self.buf, self.pos = sock, b"", 0

    def _line(self):
        while True:
            end = self.buf.find(b"\r\n", self.pos)
            if end >= 0:
                line = self.buf[self.pos:end]
                self.pos = end + 2
                return line
            self._more()

    def _more(self):
        self.buf = self.buf[self.pos:]
        self.pos = 0
        data = self.sock.recv(1 << 20)
        if not data:
            raise EOFError
        self.buf += data

    def reply(self):
        line = self._line()
        kind, rest = line[:1], line[1:]
        if kind in b"+-:":
            if kind == b"-":
                raise RuntimeError(rest.decode())
            return rest
        if kind == b"$":
            n = int(rest)
            if n < 0:
                return None
            while len(self.buf) - self.pos < n + 2:
                self._more()
            data = self.buf[self.pos:self.pos + n]
            self.pos += n + 2
            return data
        if kind in b"*>":
            return [self.reply() for _ in range(int(rest))]
        raise RuntimeError("unexpected %r" % line)


def connect(port):
    for _ in range(500):
        try:
            sock = socket.create_connection(("127.0.0.1", port))
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            return sock
        except OSError:
            time.sleep(0.01)
    raise RuntimeError("redis did not come up")


def pipeline(port, commands, window=MAX_PENDING):
    """Sends `commands` keeping at most `window` unanswered; returns seconds until the last reply."""
    sock = connect(port)
    reader = Reader(sock)
    started = time.monotonic()
    sent = answered = 0
    while answered < len(commands):
        batch = []
        while sent < len(commands) and sent - answered < window and len(batch) < 4096:
            batch.append(commands[sent])
            sent += 1
        if batch:
            sock.sendall(b"".join(batch))
        reader.reply()
        answered += 1
        while answered < sent and reader.pos < len(reader.buf):
            reader.reply()
            answered += 1
    elapsed = time.monotonic() - started
    sock.close()
    return elapsed


def main():
    rooms = int(sys.argv[1])
    events = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    folder = tempfile.mkdtemp(prefix="resubscribe-")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    args = ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--dir", folder, "--appendonly", "yes",
            "--appendfsync", "always", "--save", "", "--maxmemory-policy", "noeviction", "--logfile", ""]

    def start():
        began = time.monotonic()
        process = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        sock = connect(port)
        reader = Reader(sock)
        while True:  # LOADING until the AOF is read
            sock.sendall(command("PING"))
            try:
                reader.reply()
                break
            except RuntimeError:
                time.sleep(0.01)
        sock.close()
        return process, time.monotonic() - began

    process, _ = start()
    try:
        names = ["r%d" % i for i in range(rooms)]
        fill = [command("XADD", "{room:%s}:events" % n, "%d-0" % (s + 1), "e", "x" * 200)
                for n in names for s in range(events)]
        fill += [command("SET", "{room:%s}:seq" % n, events) for n in names]
        print("stored %d rooms x %d events in %.2f s" % (rooms, events, pipeline(port, fill)))
        process.terminate()
        process.wait()
        process, restart = start()
        aof = os.path.join(folder, "appendonlydir")
        size = sum(os.path.getsize(os.path.join(aof, name)) for name in os.listdir(aof))
        print("redis restart (AOF %.1f MB): %.2f s until it answers" % (size / 1e6, restart))
        subscribes = [command("SUBSCRIBE", "{room:%s}:live" % n) for n in names]
        print("%d SUBSCRIBEs, one channel each, confirmed in %.2f s" % (rooms, pipeline(port, subscribes)))
        fills = [command("XRANGE", "{room:%s}:events" % n, "%d-0" % events, "+", "COUNT", 100) for n in names]
        print("%d fills (XRANGE), at most %d in flight, answered in %.2f s" % (rooms, MAX_PENDING, pipeline(port, fills)))
    finally:
        process.terminate()
        process.wait()
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
