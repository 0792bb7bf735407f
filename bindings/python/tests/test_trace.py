"""The trace reader (llmlat._trace, a port of tools/trace.c): exact decimal
seconds, the three layouts, and the C reader's messages and positions."""

import unittest

from llmlat._trace import (TraceSyntaxError, ns_to_seconds_text, position, read_trace,
                           seconds_text_to_ns)


def read(data, name="t.json"):
    got = []
    info = read_trace(data, name, got.append)
    return got, info


def error_of(data, name="t.json"):
    try:
        read(data, name)
    except TraceSyntaxError as exc:
        return str(exc)
    raise AssertionError("no error for %r" % data)


class DecimalTest(unittest.TestCase):
    def test_exact_conversion(self):
        cases = {
            b"0": 0, b"-0": 0, b"1": 1_000_000_000, b"0.1": 100_000_000,
            b"1.000000001": 1_000_000_001, b"1.5e-3": 1_500_000, b"2e-9": 2,
            b"1.0000000015": 1_000_000_002,   # halves away from zero
            b"1.0000000014999": 1_000_000_001,
            b"-1.0000000015": -1_000_000_002,
            b"0.0000000005": 1, b"-0.0000000005": -1, b"0.00000000049999": 0,
            b"1E+2": 100_000_000_000, b"123456.789012345": 123_456_789_012_345,
            b"9223372036.854775807": (1 << 63) - 1,
            b"-9223372036.854775808": -(1 << 63),
            b"9223372036.8547758074": (1 << 63) - 1,
            b"1e-999999999": 0, b"0e99999999": 0,
            # 0.1 + 0.2 in floats is not 0.3; in decimal it is
            b"0.3": 300_000_000, b"1700000000.123456789": 1_700_000_000_123_456_789,
        }
        for text, ns in cases.items():
            with self.subTest(text=text):
                self.assertEqual(seconds_text_to_ns(text), ns)

    def test_out_of_range(self):
        for text in (b"9223372036.854775808", b"-9223372036.854775809",
                     b"9223372036.8547758075", b"1e999999999999", b"1e11", b"-1e11"):
            with self.subTest(text=text):
                self.assertIsNone(seconds_text_to_ns(text))

    def test_seconds_text(self):
        self.assertEqual(ns_to_seconds_text(1_500_000_000), "1.5")
        self.assertEqual(ns_to_seconds_text(-1), "-0.000000001")
        self.assertEqual(ns_to_seconds_text(0), "0")
        self.assertEqual(ns_to_seconds_text(2_000_000_000), "2")


class LayoutTest(unittest.TestCase):
    def test_array(self):
        got, info = read(b'[{"start": 0.5, "events": [[0.6, 1], [0.7, 0]], "end": 0.8, '
                         b'"ok": false, "input_tokens": 4, "output_tokens": 9, "id": "x"}, '
                         b'{"start": 1}]')
        self.assertEqual(info.requests, 2)
        self.assertIsNone(info.duration)
        q = got[0]
        self.assertEqual((q.index, q.start, list(q.times), list(q.tokens), q.end, q.ok),
                         (1, 500_000_000, [600_000_000, 700_000_000], [1, 0], 800_000_000,
                          False))
        self.assertEqual((q.input_tokens, q.output_tokens, q.id), (4, 9, b"x"))
        self.assertEqual((got[1].index, got[1].ok, got[1].end, got[1].output_tokens),
                         (2, True, None, None))

    def test_object_with_duration(self):
        got, info = read(b'{"note": [1, {"a": null}], "requests": [{"start": 0}], '
                         b'"duration": 12.5}')
        self.assertEqual(len(got), 1)
        self.assertEqual(info.duration, 12.5)

    def test_json_lines(self):
        got, info = read(b'{"start": 0, "id": 7}\n\n{"start": 1}\r\n{"start": 2}{"start": 3}')
        self.assertEqual([q.start for q in got], [0, 10**9, 2 * 10**9, 3 * 10**9])
        self.assertEqual(got[0].id, b"7")

    def test_unknown_keys_and_escapes(self):
        got, _ = read(b'[{"x": "\\u00e9\\ud83d\\ude00\\ud800", "start": 0, '
                      b'"id": "a\\"\\\\\\/\\n\\u0041"}]')
        self.assertEqual(got[0].id, b'a"\\/\nA')

    def test_long_id_is_cut_as_c_cuts_it(self):
        got, _ = read(b'[{"start": 0, "id": "' + b"x" * 100 + b'"}]')
        self.assertEqual(got[0].id, b"x" * 63)

    def test_positions(self):
        data = b'[\n  {"start": 0},\n\t{"start": 1}]'
        self.assertEqual(position(data, data.index(b"{")), (2, 3))
        self.assertEqual(position(data, data.rindex(b"{")), (3, 2))
        self.assertEqual(position(data, 0), (1, 1))


class ErrorMessageTest(unittest.TestCase):
    """Messages and positions as tools/json_reader.c and tools/trace.c
    write them (the CLI tests compare whole runs with the C command)."""

    CASES = {
        b"": "t.json:1:1: empty input: expected a trace (a JSON array of requests, an "
             "object with \"requests\", or JSON Lines)",
        b"x": "t.json:1:1: expected '[' or '{' starting a trace, found 'x'",
        b"[1]": "t.json:1:2: expected '{' starting a request, found '1'",
        b"[{}]": "t.json:1:2: request 1 has no \"start\"",
        b'[{"start": 0}\n, {"end": 1}]': "t.json:2:3: request 2 has no \"start\"",
        b'[{"start": "0"}]': "t.json:1:12: \"start\" must be a number (seconds)",
        b'[{"start": 0, "start": 1}]': "t.json:1:15: duplicate key \"start\"",
        b'[{"start": 1e99}]': "t.json:1:12: \"start\" is out of range: 1e99 s does not "
                              "fit in 64-bit nanoseconds",
        b'[{"start": 0, "events": [[1, -1]]}]':
            "t.json:1:30: an event's token count must be an integer from 0 to 4294967295",
        b'[{"start": 0, "events": [[1 1]]}]':
            "t.json:1:29: expected ',' between an event's time and its token count, "
            "found '1'",
        b'[{"start": 01}]': "t.json:1:12: malformed number: leading zero",
        b'[{"start": 1.}]': "t.json:1:12: malformed number: digits expected after '.'",
        b'[{"start": 0, "ok": 1}]': "t.json:1:21: \"ok\" must be true or false",
        b'[{"start": 0, "x": "\x01"}]': "t.json:1:20: control character (byte 0x01) in a "
                                        "string",
        b'[{"start": 0, "x": "\\q"}]': "t.json:1:20: invalid escape in a string",
        b'[{"start": 0, "x": nul}]': "t.json:1:20: invalid literal (expected null)",
        b'[{"start": 0}] x': "t.json:1:16: unexpected 'x' after the end of the trace",
        b'{"requests": [], "start": 1}': "t.json:1:18: \"start\" belongs in a request, not in "
                                         "the trace object",
        b'{"requests": [], "duration": 0}': "t.json:1:30: \"duration\" must be null or a "
                                            "number of seconds in (0, 1e+12]",
        b'[{"start": 0, "x": ' + b"[" * 300: "t.json:1:277: values nested deeper than 256",
        b'[{"start": 0.' + b"1" * 130 + b"}]": "t.json:1:12: number longer than 127 characters",
        b'{"start": 0}\n[': "t.json:2:1: expected '{' starting the next request (JSON Lines), "
                            "found '['",
        b'[{"start": 0, "x": "abc': "t.json:1:20: unterminated string",
    }

    def test_messages(self):
        for data, message in self.CASES.items():
            with self.subTest(data=data[:40]):
                self.assertEqual(error_of(data), message)

    def test_requests_before_the_error_were_handed_over(self):
        got = []
        with self.assertRaises(TraceSyntaxError):
            read_trace(b'[{"start": 0}, {"start": 1}, {"start": x}]', "t", got.append)
        self.assertEqual(len(got), 2)
