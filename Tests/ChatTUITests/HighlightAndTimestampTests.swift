import Testing

@testable import ChatTUI

struct HighlightMatcherTests {
    /// The nick or a highlight word, as a whole word in any case, highlights; inside a word it does not.
    @Test func wholeWordsIgnoringCase() {
        let matcher = HighlightMatcher(nick: "alice", words: ["deploy", "on call"])
        for text in ["alice: hi", "hi @Alice!", "ALICE", "who is alice?", "time to DEPLOY", "who is on call today"] {
            #expect(matcher.matches(text), "\(text)")
        }
        for text in ["malice", "alice_2 says hi", "alice-bot", "deployed", "", "a l i c e"] {
            #expect(!matcher.matches(text), "\(text)")
        }
        #expect(!HighlightMatcher(nick: "").matches("anything"))
    }
}

struct TimestampFormatTests {
    /// Fields of the pattern, with the zone offset, fixed width; unknown fields are copied.
    @Test func formatsFields() {
        // 2026-11-30 12:34:56 UTC
        let time: Int64 = 1_796_042_096_000
        #expect(TimestampFormat("%Y-%m-%d %H:%M:%S").format(time, utcOffsetSeconds: 0) == "2026-11-30 12:34:56")
        #expect(TimestampFormat("%d/%m/%y %H:%M").format(time, utcOffsetSeconds: 3600) == "30/11/26 13:34")
        #expect(TimestampFormat("[%H%%%q]").format(time, utcOffsetSeconds: 0) == "[12%%q]")
        #expect(TimestampFormat.minutes.format(-60_000, utcOffsetSeconds: 0) == "23:59")
        #expect(TimestampFormat.seconds.width == 8)
        #expect(TimestampFormat("").isEmpty && TimestampFormat("").width == 0)
        // New Year's Eve of a leap year, before the epoch.
        #expect(TimestampFormat("%Y-%m-%d").format(-1_000, utcOffsetSeconds: 0) == "1969-12-31")
        #expect(TimestampFormat("%Y-%m-%d").format(951_782_400_000, utcOffsetSeconds: 0) == "2000-02-29")
    }

    /// What the configuration gives is shown on screen: controls never get into the pattern.
    @Test func patternHasNoControls() {
        #expect(TimestampFormat("%H\u{1B}[2J:%M\u{7}").pattern == "%H[2J:%M")
    }

    /// The renderer's timestamps follow the format, and rows are indented to match.
    @Test func rendererUsesTheFormat() {
        var model = ChatViewModel(serverName: "s", nick: "me")
        model.append(ChatLine(timestamp: sampleTime, nick: "bob", text: "one\ntwo", kind: .message), to: "lobby")
        let options = RenderOptions(now: sampleTime, timestamp: TimestampFormat("%H:%M:%S"))
        let (_, screen, _) = renderOnScreen(model, editor: LineEditor(), size: TerminalSize(columns: 40, rows: 8), options: options)
        #expect(screen.textLines[4] == "12:34:00 <bob> one")
        #expect(screen.textLines[5] == "         two")
        let bare = RenderOptions(now: sampleTime, timestamp: TimestampFormat(""))
        let (_, plain, _) = renderOnScreen(model, editor: LineEditor(), size: TerminalSize(columns: 40, rows: 8), options: bare)
        #expect(plain.textLines[4] == "<bob> one")
        #expect(plain.textLines[5] == "two")
    }
}
