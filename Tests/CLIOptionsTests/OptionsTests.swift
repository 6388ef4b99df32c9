import CLIOptions
import Testing

@Suite struct OptionsTests {
    /// Valued options, inline `=` values, flags and positionals are all recognised.
    @Test func parsesEveryForm() throws {
        let options = try Options(["server", "--port", "4433", "--host=::1", "--verbose", "extra"],
                                  valued: ["port", "host"], flags: ["verbose"])
        #expect(options.positional == ["server", "extra"])
        #expect(try options.integer("port", default: 0) == 4433)
        #expect(options.string("host") == "::1")
        #expect(options.flag("verbose"))
        #expect(!options.flag("quiet"))
    }

    /// A misspelled or undeclared option is an error, not silently ignored.
    @Test func rejectsUnknownOption() {
        #expect(throws: UsageError.self) { try Options(["--prot", "1"], valued: ["port"], flags: []) }
    }

    /// A valued option at the end without its value is an error.
    @Test func rejectsMissingValue() {
        #expect(throws: UsageError.self) { try Options(["--port"], valued: ["port"], flags: []) }
    }

    /// A flag given a value is an error.
    @Test func rejectsValueOnFlag() {
        #expect(throws: UsageError.self) { try Options(["--verbose=yes"], valued: [], flags: ["verbose"]) }
    }

    /// Integers outside their range or not numbers are errors naming the option.
    @Test func validatesIntegerRange() throws {
        let options = try Options(["--port", "70000", "--count", "x"], valued: ["port", "count"], flags: [])
        #expect(throws: UsageError.self) { try options.integer("port", default: 4433, in: 1...65535) }
        #expect(throws: UsageError.self) { try options.integer("count", default: 1) }
        #expect(try options.integer("absent", default: 7) == 7)
    }
}
