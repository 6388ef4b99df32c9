import Testing

@testable import ChatProtocol

/// The text rules of version 1.2 (PROTOCOL.md sections 15 to 17) that server and client share:
/// reactions, search words, mentions, away reasons.
struct AlwaysOnValidationTests {
    @Test(arguments: ["👍", "👍🏽", "👩‍👩‍👧", "+1", "lgtm", "❤️", String(repeating: "x", count: 32)])
    func reactionsThatAreAccepted(_ reaction: String) {
        #expect(ChatValidation.isValidReaction(reaction))
    }

    @Test(arguments: ["", "+ 1", "a\u{00A0}b", "a\u{3000}b", "tab\there", "\u{1B}[2J", "x\u{85}", String(repeating: "x", count: 33),
                      String(repeating: "👍", count: 9)])
    func reactionsThatAreRefused(_ reaction: String) {
        #expect(!ChatValidation.isValidReaction(reaction))
        #expect(throws: ChatValidationError.badReaction) { try ChatValidation.validateReaction(reaction) }
        #expect(ChatValidationError.badReaction.errorCode == .badField)
    }

    /// Words are runs of letters and digits, case-folded; punctuation and spaces split them.
    @Test func searchWordsAreFoldedRunsOfLettersAndDigits() {
        #expect(ChatValidation.searchWords("Deploy on FRIDAY, v2.1 (maybe)!") == ["deploy", "on", "friday", "v2", "1", "maybe"])
        #expect(ChatValidation.searchWords("Straße") == ChatValidation.searchWords("STRASSE"))
        #expect(ChatValidation.searchWords("ΣΊΣΥΦΟΣ") == ChatValidation.searchWords("σίσυφος"))
        // A combining accent stays in its word; the precomposed and decomposed forms both make one word.
        #expect(ChatValidation.searchWords("cafe\u{301} au lait").count == 3)
        #expect(ChatValidation.searchWords("東京 タワー") == ["東京", "タワー"])
        #expect(ChatValidation.searchWords("--- ... !!!").isEmpty)
        #expect(ChatValidation.searchWords("snake_case") == ["snake", "case"])
    }

    @Test func searchQueriesAreOneToEightWordsInAtMost256Bytes() throws {
        #expect(try ChatValidation.searchQuery("deploy Friday deploy") == ["deploy", "friday"])
        #expect(try ChatValidation.searchQuery(Array(repeating: "w", count: 8).enumerated().map { "\($1)\($0)" }.joined(separator: " ")).count == 8)
        for bad in ["", "   ", "?!", "a b c d e f g h i", String(repeating: "a", count: 257)] {
            #expect(throws: ChatValidationError.badSearch, "\(bad.prefix(20))") { try ChatValidation.searchQuery(bad) }
        }
    }

    @Test func textMatchesOnWholeWordsOnly() throws {
        let query = try ChatValidation.searchQuery("deploy friday")
        #expect(ChatValidation.textMatches("Friday: we DEPLOY.", query: query))
        #expect(!ChatValidation.textMatches("deployment on friday", query: query))
        #expect(!ChatValidation.textMatches("deploy on monday", query: query))
    }

    /// A nick is named case-insensitively, not inside a longer run of nick characters.
    @Test func mentionsNameTheNickAsAWholeName() {
        #expect(ChatValidation.mentions("bob: hi", nick: "bob"))
        #expect(ChatValidation.mentions("hi @Bob!", nick: "bob"))
        #expect(ChatValidation.mentions("ping BOB", nick: "bob"))
        #expect(ChatValidation.mentions("bobby, jim_bob and bob-2 said hi to bob", nick: "bob"))
        #expect(!ChatValidation.mentions("bobby and jim_bob and bob-2", nick: "bob"))
        #expect(!ChatValidation.mentions("bo", nick: "bob"))
        #expect(ChatValidation.mentions("héllo bob", nick: "bob"))
    }

    @Test func awayReasonsAreOneLineOfAtMost256Bytes() throws {
        #expect(try ChatValidation.sanitizeAwayReason("lunch\nback at 2") == "lunch back at 2")
        #expect(try ChatValidation.sanitizeAwayReason(String(repeating: "z", count: 256)).utf8.count == 256)
        #expect(throws: ChatValidationError.awayTooLong) { try ChatValidation.sanitizeAwayReason(String(repeating: "z", count: 257)) }
        #expect(ChatValidationError.awayTooLong.errorCode == .badField)
    }
}
