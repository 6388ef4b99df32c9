import Foundation

/// The decoder's idea of a JSON object is RFC 8259's, as Foundation's JSONSerialization sees it:
/// what the decoder reads as JSON (a message, or a bad field) Foundation parses as an object, and
/// what Foundation parses as an object the decoder does not call `bad-json`, except where the
/// protocol is deliberately stricter (nesting deeper than 64, `\u` escapes of surrogates) and
/// where Foundation is lenient (it accepts a comma before `}` or `]`) or limited (it rejects
/// numbers beyond a Double's range, such as `1e400`).
func checkJSONVerdict(_ input: UnsafeRawBufferPointer, decoderSaysJSON: Bool) {
    // Foundation guesses UTF-16 and UTF-32 from NUL bytes and a byte-order mark; the wire is UTF-8.
    guard !input.contains(0), !input.starts(with: [0xEF, 0xBB, 0xBF]) else { return }
    let parsed = try? JSONSerialization.jsonObject(with: Data(input))
    let foundationSaysObject = parsed is [String: Any]
    if decoderSaysJSON {
        require(foundationSaysObject || containsExponent(input), "the decoder accepts what JSONSerialization rejects")
    } else if foundationSaysObject, let parsed, nestingDepth(parsed) <= ChatLimits.maxNestingDepth,
              !containsSurrogateEscape(input), !containsTrailingComma(input) {
        fatalError("property violated: the decoder calls bad-json what JSONSerialization parses")
    }
}

private func nestingDepth(_ value: Any) -> Int {
    switch value {
    case let object as [String: Any]: 1 + (object.values.map(nestingDepth).max() ?? 0)
    case let array as [Any]: 1 + (array.map(nestingDepth).max() ?? 0)
    default: 0
    }
}

/// Whether `\uD800` to `\uDFFF` appear, in any case; a false match only skips the check.
private func containsSurrogateEscape(_ input: UnsafeRawBufferPointer) -> Bool {
    let bytes = Array(input)
    return bytes.indices.dropLast(2).contains { index in
        bytes[index] == UInt8(ascii: "\\") && bytes[index + 1] == UInt8(ascii: "u")
            && (bytes[index + 2] | 0x20) == UInt8(ascii: "d")
    }
}

/// Whether a comma is followed, after whitespace, by `}` or `]`; a false match only skips the check.
private func containsTrailingComma(_ input: UnsafeRawBufferPointer) -> Bool {
    var isAfterComma = false
    for byte in input {
        if byte == UInt8(ascii: "}") || byte == UInt8(ascii: "]"), isAfterComma { return true }
        if byte == UInt8(ascii: ",") {
            isAfterComma = true
        } else if !ASCII.isWhitespace(byte) {
            isAfterComma = false
        }
    }
    return false
}

/// Whether a digit is followed by `e` or `E`; a false match only skips the check.
private func containsExponent(_ input: UnsafeRawBufferPointer) -> Bool {
    zip(input, input.dropFirst()).contains { ASCII.isDigit($0.0) && ($0.1 | 0x20) == ASCII.lowerE }
}
