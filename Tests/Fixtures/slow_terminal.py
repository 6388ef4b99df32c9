#!/usr/bin/python3
"""A terminal that reads slowly, for chat-client's tests (issue 24, defect 1).

Runs a command on a pseudo-terminal of COLUMNS x ROWS whose output is read CHUNK bytes at a time
with DELAY_MS between reads (a slow terminal, a slow ssh link), and feeds every byte read to pyte,
an independent terminal emulator (Debian's python3-pyte, installed by scripts/install-deps.sh).

Commands, one per line on standard input; each answer ends with a line `OK` (or `TIMEOUT`):
  type TEXT        the keys of TEXT
  key NAME         Enter, C-l, C-c, Escape, or hex bytes (`hex 1b5b41`)
  wait TEXT SECS   until TEXT is on the emulated screen
  quiet MS SECS    until nothing was read for MS milliseconds since the last read or key (the
                   program drew everything)
  screen           the emulated screen, one `| row` line each
  osc              every OSC 8, 9 and 777 sequence read so far (hyperlinks, desktop
                   notifications), one `> PAYLOAD` line each (the bytes after `ESC ]` up to BEL or ST)
  pause, resume    stop reading the program's output (its writes fill the pty and stop short), go on
On the program's exit it prints `EXITED STATUS`.

Usage: slow_terminal.py COLUMNS ROWS CHUNK DELAY_MS COMMAND [ARGUMENT...]
"""
import fcntl
import os
import pty
import re
import struct
import sys
import termios
import threading
import time

import pyte

KEYS = {"Enter": b"\r", "C-l": b"\x0c", "C-c": b"\x03", "Escape": b"\x1b"}


def main():
    columns, rows, chunk, delay = (int(value) for value in sys.argv[1:5])
    command = sys.argv[5:]
    screen = pyte.Screen(columns, rows)
    stream = pyte.ByteStream(screen)
    lock = threading.Lock()
    last_read = [time.monotonic()]
    raw = bytearray()
    reading = threading.Event()
    reading.set()

    pid, master = pty.fork()
    if pid == 0:
        fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))
        os.execvp(command[0], command)

    def read_slowly():
        while True:
            reading.wait()
            try:
                data = os.read(master, chunk)
            except OSError:
                break
            if not data:
                break
            with lock:
                stream.feed(data)
                raw.extend(data)
                last_read[0] = time.monotonic()
            time.sleep(delay / 1000)
        _, status = os.waitpid(pid, 0)
        print("EXITED %d" % os.waitstatus_to_exitcode(status), flush=True)

    threading.Thread(target=read_slowly, daemon=True).start()

    def text():
        with lock:
            return "\n".join(screen.display)

    for line in sys.stdin:
        words = line.rstrip("\n").split(" ", 1)
        name, argument = words[0], words[1] if len(words) > 1 else ""
        answer = "OK"
        if name in ("type", "key"):
            keys = argument.encode() if name == "type" else bytes.fromhex(argument[4:]) if argument.startswith("hex ") else KEYS[argument]
            with lock:
                # A key is activity too: `quiet` waits for the program's answer to it.
                last_read[0] = time.monotonic()
            os.write(master, keys)
        elif name == "wait":
            wanted, seconds = argument.rsplit(" ", 1)
            deadline = time.monotonic() + float(seconds)
            while wanted not in text():
                if time.monotonic() > deadline:
                    answer = "TIMEOUT"
                    break
                time.sleep(0.02)
        elif name == "quiet":
            milliseconds, seconds = (float(value) for value in argument.split(" "))
            deadline = time.monotonic() + seconds
            while True:
                with lock:
                    idle = time.monotonic() - last_read[0]
                if idle * 1000 >= milliseconds:
                    break
                if time.monotonic() > deadline:
                    answer = "TIMEOUT"
                    break
                time.sleep(0.02)
        elif name == "pause":
            reading.clear()
        elif name == "resume":
            reading.set()
        elif name == "osc":
            with lock:
                seen = bytes(raw)
            for match in re.finditer(rb"\x1b\]((?:8|9|777);[^\x07\x1b]*)(?:\x07|\x1b\\)", seen):
                print("> " + match.group(1).decode("utf-8", "replace"), flush=True)
        elif name == "screen":
            for row in text().split("\n"):
                print("| " + row, flush=True)
        print(answer, flush=True)


main()
