@testable import ChatBot
import ChatProtocol
import Testing

/// The bot script language: what good scripts parse to, and the line every mistake names.
@Suite("chat-bot script parser")
struct ScriptParserTests {
    /// A script with two bots, comments, a repeat block and every command parses to exactly the
    /// commands written, each with its own line number.
    @Test func parsesEveryCommand() throws {
        let text = """
            # greeting
            bot alice {
                wait 200ms
                say hello bob   
                dm bob psst, bob
                typing start
                repeat 2 {
                    wait 1s..3s
                    typing stop
                }
                join dev
                part dev
                part
                quit
            }

            bot Bob_2 Lobby {
              expect msg from alice "hello" within 2s
              expect /h(i|ello)/
              expect dm "psst"
              expect error "rate-limited" within 500ms
              expect typing from alice
              repeat forever {
                expect
              }
            }
            """
        let script = try ScriptParser.parse(text)
        #expect(script.bots.count == 2)
        let alice = script.bots[0]
        #expect(alice.name == "alice" && alice.room == "lobby" && alice.line == 2)
        #expect(alice.commands == [
            ScriptCommand(line: 3, .wait(DurationRange(milliseconds: 200))),
            ScriptCommand(line: 4, .say("hello bob")),
            ScriptCommand(line: 5, .directMessage(to: "bob", text: "psst, bob")),
            ScriptCommand(line: 6, .typing(true)),
            ScriptCommand(line: 7, .repeatBlock(times: 2, body: [
                ScriptCommand(line: 8, .wait(DurationRange(parsing: "1s..3s")!)),
                ScriptCommand(line: 9, .typing(false)),
            ])),
            ScriptCommand(line: 11, .join(room: "dev")),
            ScriptCommand(line: 12, .part(room: "dev")),
            ScriptCommand(line: 13, .part(room: nil)),
            ScriptCommand(line: 14, .quit),
        ])
        let bob = script.bots[1]
        #expect(bob.name == "Bob_2" && bob.room == "lobby" && bob.line == 17)
        #expect(bob.commands[0] == ScriptCommand(line: 18, .expect(ScriptExpectation(
            kind: .msg, from: "alice", pattern: .substring("hello"), timeoutMilliseconds: 2000))))
        #expect(bob.commands[1].action == .expect(ScriptExpectation(kind: .chat, pattern: .regex("h(i|ello)"))))
        #expect(bob.commands[2].action == .expect(ScriptExpectation(kind: .dm, pattern: .substring("psst"))))
        #expect(bob.commands[3].action == .expect(ScriptExpectation(kind: .error, pattern: .substring("rate-limited"),
                                                                    timeoutMilliseconds: 500)))
        #expect(bob.commands[4].action == .expect(ScriptExpectation(kind: .typing, from: "alice")))
        #expect(bob.commands[5] == ScriptCommand(line: 23, .repeatBlock(times: nil, body: [
            ScriptCommand(line: 24, .expect(ScriptExpectation())),
        ])))
    }

    /// Durations take ms, s and m, fractions and ranges; anything else is refused.
    @Test func durations() {
        #expect(DurationRange(parsing: "500ms") == DurationRange(milliseconds: 500))
        #expect(DurationRange(parsing: "2s") == DurationRange(milliseconds: 2000))
        #expect(DurationRange(parsing: "1.5s") == DurationRange(milliseconds: 1500))
        #expect(DurationRange(parsing: "1m") == DurationRange(milliseconds: 60_000))
        let range = DurationRange(parsing: "1s..3s")
        #expect(range?.minimumMilliseconds == 1000 && range?.maximumMilliseconds == 3000)
        for bad in ["", "5", "s", "-1s", "1h", "3s..1s", "1s..", "2 s", "1e3ms"] {
            #expect(DurationRange(parsing: bad) == nil, "\(bad)")
        }
    }

    /// Quotes group words and take `\"` escapes; a regex keeps its own escapes.
    @Test func tokens() {
        #expect(ScriptToken.split(#"msg from bob "say \"hi\" now" /a\/b\d/"#) == [
            .word("msg"), .word("from"), .word("bob"), .quoted(#"say "hi" now"#), .regex(#"a/b\d"#),
        ])
        #expect(ScriptToken.split(#"from bob "open"#) == nil)
    }

    static let mistakes: [(script: String, line: Int, says: String)] = [
        ("bot alice {\n  sya hi\n}", 2, "unknown command 'sya'"),
        ("say hi", 1, "outside a bot block"),
        ("# c\nbot alice {\n  say hi\n", 2, "never closed"),
        ("bot alice {\n  repeat 3 {\n    say hi\n}", 1, "never closed"),
        ("bot alice {\n}\n}", 3, "without an open block"),
        ("bot alice {\n  wait 5 seconds\n}", 2, "expected 'wait DURATION'"),
        ("bot alice {\n  wait 5x\n}", 2, "not a duration"),
        ("bot 9lives {\n}", 1, "not a valid nick"),
        ("bot alice {\n}\nbot Alice {\n}", 3, "already defined on line 1"),
        ("bot alice {\n  repeat 2 {\n  }\n}", 2, "empty"),
        ("bot alice {\n  say x\n  repeat forever {\n    say hi\n  }\n}", 3, "would flood"),
        ("bot alice {\n  repeat 0 {\n    wait 1s\n  }\n}", 2, "repeat count"),
        ("bot alice {\n  bot bob {\n  }\n}", 2, "inside another block"),
        ("bot alice {\n  expect /([a-/ within 1s\n}", 2, "not a valid regular expression"),
        ("bot alice {\n  expect from bob \"unclosed\n}", 2, "never closed"),
        ("bot alice {\n  expect \"a\" \"b\"\n}", 2, "second text"),
        ("bot alice {\n  expect from\n}", 2, "unexpected 'from'"),
        ("bot alice {\n  quit\n  say late\n}", 3, "after 'quit' (line 2)"),
        ("bot alice {\n  repeat 2 {\n    quit\n  }\n}", 3, "last command"),
        ("bot alice {\n  typing maybe\n}", 2, "typing start"),
        ("bot alice {\n  join Bad.Room\n}", 2, "not a valid room"),
        ("bot alice {\n  say\n}", 2, "text is missing"),
        ("bot alice {\n  dm bob\n}", 2, "dm NICK TEXT"),
        ("bot alice {\n  send-raw\n}", 2, "bytes are missing"),
        ("bot alice {\n  send-raw ab\\x4\n}", 2, "two hex digits"),
        ("bot alice {\n  send-raw \\x+f\n}", 2, "two hex digits"),
        ("bot alice lobby\n", 1, "'{' ends the line"),
        ("\n# only a comment\n", 3, "no bots"),
    ]

    /// `send-raw` turns `\xHH` into that byte and leaves everything else, JSON escapes included, as written.
    @Test func sendRawBytes() throws {
        let script = try ScriptParser.parse(#"bot alice {"# + "\n" + #"  send-raw {"text":"\u001b \xff\xFE\x0a"}"# + "\n}")
        let action = try #require(script.bots.first?.commands.first?.action)
        #expect(action == .sendRaw(Array(#"{"text":"\u001b "#.utf8) + [0xFF, 0xFE, 0x0A] + Array(#""}"#.utf8)))
    }

    /// Every mistake is refused with the line it is on (or, for a block never closed, the line
    /// that opened it) and a message that says what is wrong.
    @Test(arguments: mistakes)
    func reportsLine(_ mistake: (script: String, line: Int, says: String)) {
        #expect(throws: ScriptError.self) { try ScriptParser.parse(mistake.script) }
        do {
            _ = try ScriptParser.parse(mistake.script)
        } catch {
            #expect(error.line == mistake.line, "\(error)")
            #expect(error.message.contains(mistake.says), "\(error)")
        }
    }

    /// The cursor enters repeat blocks (nested too) and runs their bodies the given number of
    /// times; `repeat forever` never ends.
    @Test func cursorRunsRepeats() throws {
        let script = try ScriptParser.parse("""
            bot a {
              say 1
              repeat 2 {
                say 2
                repeat 3 {
                  say 3
                }
              }
              say 4
            }
            """)
        var cursor = ProgramCursor(script.bots[0].commands)
        var lines: [Int] = []
        while let command = cursor.next() { lines.append(command.line) }
        #expect(lines == [2, 4, 6, 6, 6, 4, 6, 6, 6, 9])

        let forever = try ScriptParser.parse("bot a {\n  repeat forever {\n    wait 1s\n    say x\n  }\n}")
        var endless = ProgramCursor(forever.bots[0].commands)
        let first = (0..<7).compactMap { _ in endless.next()?.line }
        #expect(first == [3, 4, 3, 4, 3, 4, 3])
    }
}

/// The account and moderation commands of bot scripts (issue 13).
@Suite("chat-bot script parser, accounts and moderation")
struct ScriptModerationParserTests {
    /// Each command parses to its request; `-server` drops the room; the bot header may carry a password.
    @Test func parsesTheRequests() throws {
        let script = try ScriptParser.parse("""
            bot alice club password secret-pass {
                register
                register another-pass
                login alice secret-pass
                password newer-pass
                claim
                claim other
                topic release on Friday
                kick bob spamming links
                ban -server troll
                unban troll
                op carol
                deop carol
                mode +invite
                invite dave
                expect mode "+invite"
                expect kicked from alice /bob/
                expect account "registered"
            }
            """)
        let alice = script.bots[0]
        #expect(alice.password == "secret-pass" && alice.room == "club")
        let requests = alice.commands.compactMap { command -> ScriptRequest? in
            if case .request(let request) = command.action { request } else { nil }
        }
        #expect(requests.count == 14)
        #expect(requests[0] == ScriptRequest(type: .register, scope: .none))
        #expect(requests[2] == ScriptRequest(type: .login, scope: .none, password: "secret-pass", account: "alice"))
        #expect(requests[5].scope == .room("other"))
        #expect(requests[6] == ScriptRequest(type: .topic, scope: .currentRoom, text: "release on Friday"))
        #expect(requests[7] == ScriptRequest(type: .kick, scope: .currentRoom, target: "bob", text: "spamming links"))
        #expect(requests[8] == ScriptRequest(type: .ban, scope: .none, target: "troll"))
        #expect(requests[12] == ScriptRequest(type: .mode, scope: .currentRoom, mode: "+invite"))
        let message = requests[7].message(currentRoom: "club") { $0 == "bob" ? "bob_2" : $0 }
        #expect(message == ChatMessage(type: "kick", text: "spamming links", room: "club", to: "bob_2"))
        guard case .expect(let expectation) = alice.commands[15].action else { Issue.record("expected an expect"); return }
        #expect(expectation.kind == .kicked)
        #expect(expectation.matches(ChatMessage(type: "kicked", text: "spam", sender: "alice", room: "club", to: "bob"), senderNick: "alice"))
    }

    /// Mistakes name their line: a short password, a bad mode, a kick without a nick.
    @Test func mistakes() {
        #expect(throws: ScriptError(line: 2, "a password is 8 to 256 bytes")) { try ScriptParser.parse("bot a {\n register short\n}") }
        #expect(throws: ScriptError(line: 2, "expected 'mode +invite', '-invite', '+registered' or '-registered'")) {
            try ScriptParser.parse("bot a {\n mode +moderated\n}")
        }
        #expect(throws: ScriptError(line: 2, "expected 'kick [-server] NICK [REASON]'")) { try ScriptParser.parse("bot a {\n kick\n}") }
        #expect(throws: ScriptError(line: 1, "a password is 8 to 256 bytes")) { try ScriptParser.parse("bot a lobby password x {\n}") }
    }
}
