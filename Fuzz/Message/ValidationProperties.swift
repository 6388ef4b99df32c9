/// ChatValidation's verdicts on one string, held against ``ProtocolRules``. Strings are compared
/// by their bytes: `==` on String would call canonically equivalent spellings equal.
func checkValidation(of text: String, using random: inout SplitMix64) {
    checkNick(text, using: &random)
    checkRoom(text)
    checkText(text)
    require(ChatValidation.isValidPeerID(text) == ProtocolRules.isPeerID(text), "peer id verdict for \(text.debugDescription)")
    require(ChatValidation.isValidMessageID(text) == ProtocolRules.isMessageID(text), "message id verdict for \(text.debugDescription)")
    checkExcerpt(text)
}

/// An excerpt is at most 32 characters of printable ASCII plus an ellipsis, and keeps a short
/// printable text as it is.
private func checkExcerpt(_ text: String) {
    let excerpt = ChatValidation.excerpt(text)
    let scalars = Array(excerpt.unicodeScalars)
    let body = scalars.last == "…" ? scalars.dropLast() : scalars[...]
    require(body.count <= 32 && body.allSatisfy { $0.value >= 0x20 && $0.value < 0x7F }, "excerpt of \(text.debugDescription) is short and printable")
    let isShortPrintable = text.unicodeScalars.count <= 32 && text.unicodeScalars.allSatisfy { $0.value >= 0x20 && $0.value < 0x7F }
    if isShortPrintable { require(excerpt.utf8.elementsEqual(text.utf8), "a short printable text is its own excerpt") }
}

private func checkNick(_ text: String, using random: inout SplitMix64) {
    let isValid = ChatValidation.isValidNick(text)
    require(isValid == ProtocolRules.isNick(text), "nick verdict for \(text.debugDescription)")
    require(throwsError { () throws(ChatValidationError) in try ChatValidation.validateNick(text) } == (isValid ? nil : .badNick),
            "validateNick agrees with isValidNick")
    let key = ChatValidation.nickKey(text)
    require(key.utf8.count == text.utf8.count && ChatValidation.nickKey(key).utf8.elementsEqual(key.utf8),
            "a nick key has the nick's size and is its own key")
    guard isValid else { return }
    require(key.utf8.elementsEqual(text.lowercased().utf8), "a valid nick's key is the nick lower-cased")

    let suffix = Int.random(in: 2...Int.max, using: &random)
    for candidate in [ChatValidation.nickCandidate(base: text, suffix: 2), ChatValidation.nickCandidate(base: text, suffix: suffix)] {
        require(ProtocolRules.isNick(candidate), "nick candidate \(candidate) from a valid base is a valid nick")
    }
    checkFirstFreeNick(text, takenCount: Int.random(in: 0...3, using: &random))
}

/// With the nick and its first suffixed forms taken (in another case), the first free one is
/// chosen: the wanted nick, else the smallest suffix whose candidate is free. A long nick can equal
/// one of its own candidates (`abc…_3` is the base cut short plus `_3`), so the count of taken
/// names does not tell the suffix.
private func checkFirstFreeNick(_ wanted: String, takenCount: Int) {
    let taken = (0..<takenCount).map { $0 == 0 ? wanted : ChatValidation.nickCandidate(base: wanted, suffix: $0 + 1) }
    let takenKeys = Set(taken.map { ChatValidation.nickKey($0.uppercased()) })
    let isTaken = { (nick: String) in takenKeys.contains(ChatValidation.nickKey(nick)) }
    let chosen = ChatValidation.firstFreeNick(for: wanted, isTaken: isTaken)
    let firstFreeSuffix = (2...(takenCount + 2)).first { !isTaken(ChatValidation.nickCandidate(base: wanted, suffix: $0)) }!
    let expected = isTaken(wanted) ? ChatValidation.nickCandidate(base: wanted, suffix: firstFreeSuffix) : wanted
    require(chosen.utf8.elementsEqual(expected.utf8), "first free nick for \(wanted) with \(takenCount) taken is \(expected), not \(chosen)")
    require(ProtocolRules.isNick(chosen) && !isTaken(chosen), "the first free nick is valid and free")
}

private func checkRoom(_ text: String) {
    let normalized = ChatValidation.normalizeRoom(text)
    let expected = ProtocolRules.room(text)
    require(normalized.map { Array($0.utf8) } == expected.map { Array($0.utf8) }, "room verdict for \(text.debugDescription)")
    require(throwsError { () throws(ChatValidationError) in _ = try ChatValidation.validateRoom(text) } == (normalized == nil ? .badRoom : nil),
            "validateRoom agrees with normalizeRoom")
    if let normalized {
        require(ChatValidation.normalizeRoom(normalized).map { Array($0.utf8) } == Array(normalized.utf8), "a normalised room is its own normal form")
    }
}

private func checkText(_ text: String) {
    let expected = ProtocolRules.sanitizedText(text)
    let removed = ChatValidation.removingControlCharacters(from: text)
    require(removed.utf8.elementsEqual(expected.utf8), "control characters removed from \(text.debugDescription)")
    require(ChatValidation.removingControlCharacters(from: removed).utf8.elementsEqual(removed.utf8), "removal is idempotent")
    let expectedError: ChatValidationError? =
        expected.utf8.isEmpty ? .textEmpty : expected.utf8.count > ProtocolRules.maxTextBytes ? .textTooLarge : nil
    do {
        let sanitized = try ChatValidation.sanitizeText(text)
        require(expectedError == nil && sanitized.utf8.elementsEqual(expected.utf8), "sanitized text of \(text.debugDescription)")
    } catch {
        require(error == expectedError, "sanitizeText throws \(error), the rules say \(String(describing: expectedError))")
    }
}

/// The error a validation throws, or nil.
private func throwsError(_ body: () throws(ChatValidationError) -> Void) -> ChatValidationError? {
    do {
        try body()
        return nil
    } catch {
        return error
    }
}
