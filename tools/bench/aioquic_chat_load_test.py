#!/usr/bin/env python3
"""Unit tests of aioquic_chat_load.py's framing and conformance records and its load texts.

Run with the aioquic venv's python:
  .build/interop-venv/bin/python tools/bench/aioquic_chat_load_test.py
(AioquicLoadEndToEndTests runs it)."""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from aioquic_chat_load import Conformance, StreamFramer, load_text, parse_load_text  # noqa: E402


def framer():
    conformance = Conformance()
    return StreamFramer("test", conformance), conformance


class FramingTests(unittest.TestCase):
    def test_objects_with_lf_split_anywhere(self):
        """Objects and their LFs split across frames at every byte come out whole, no deviation."""
        data = b'{"type":"msg","text":"h\xc3\xa9","sender":"a"}\n{"type":"ack","text":"","sender":""}\n'
        for cut in range(1, len(data)):
            stream, conformance = framer()
            found = stream.feed(data[:cut]) + stream.feed(data[cut:])
            stream.finished()
            self.assertEqual([message["type"] for message in found], ["msg", "ack"], f"cut at {cut}")
            self.assertEqual(conformance.total, 0, f"cut at {cut}: {conformance.counts}")

    def test_several_in_one_frame(self):
        stream, conformance = framer()
        found = stream.feed(b'{"type":"a"}\n{"type":"b"}\n{"type":"c"}\n')
        self.assertEqual([message["type"] for message in found], ["a", "b", "c"])
        self.assertEqual(conformance.total, 0)

    def test_back_to_back_without_lf_is_read_and_recorded(self):
        """PROTOCOL.md: receivers accept objects without LF; a server must write it, so it is a deviation."""
        stream, conformance = framer()
        found = stream.feed(b'{"type":"a"}{"type":"b"}\n')
        self.assertEqual([message["type"] for message in found], ["a", "b"])
        self.assertEqual(conformance.counts, {"messages back to back without LF": 1})

    def test_missing_lf_before_the_next_object_is_recorded(self):
        stream, conformance = framer()
        self.assertEqual([m["type"] for m in stream.feed(b'{"type":"a"}')], ["a"])
        self.assertEqual([m["type"] for m in stream.feed(b'{"type":"b"}\n')], ["b"])
        self.assertEqual(conformance.counts, {"message not followed by LF": 1})

    def test_lf_in_the_next_frame_is_no_deviation(self):
        stream, conformance = framer()
        self.assertEqual(len(stream.feed(b'{"type":"a"}')), 1)
        self.assertEqual(stream.feed(b'\n'), [])
        stream.finished()
        self.assertEqual(conformance.total, 0)

    def test_bad_json_invalid_utf8_and_oversize_are_recorded(self):
        stream, conformance = framer()
        stream.feed(b'{"type":\n')
        stream.feed(b'{"type":"\xff"}\n')
        stream.feed(b'{"text":"' + b"x" * 70000)
        self.assertEqual(conformance.counts, {"not JSON": 1, "invalid UTF-8": 1, "message over 65536 bytes": 1})

    def test_unterminated_at_the_end_is_recorded(self):
        stream, conformance = framer()
        stream.feed(b'{"type":"a"')
        stream.finished()
        self.assertEqual(conformance.counts, {"unterminated message at the end of a stream": 1})


class LoadTextTests(unittest.TestCase):
    def test_round_trip_and_size(self):
        """chat-bot load's format (LoadMessageText.swift), padded to the size."""
        text = load_text(7, 42, 123456789, 200)
        self.assertEqual(len(text), 200)
        self.assertTrue(text.startswith("L7.42.123456789 x"))
        self.assertEqual(parse_load_text(text), (7, 42, 123456789))

    def test_other_texts_are_not_load(self):
        for text in ["hello", "L1.2", "L1.2.x", "Lx.2.3", ""]:
            self.assertIsNone(parse_load_text(text), text)


if __name__ == "__main__":
    unittest.main()
