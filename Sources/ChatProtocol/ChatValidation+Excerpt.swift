/// Quoting client input back in an `error` text or a log line without handing it a terminal.
extension ChatValidation {
    /// At most ``ChatLimits/maxExcerptCharacters`` characters of `input`, every one that is not
    /// printable ASCII replaced by `?`, and `…` when it was cut: short enough that an error can
    /// never carry a client's 60 KB back, inert enough that no escape sequence survives.
    public static func excerpt(_ input: some StringProtocol) -> String {
        var result = ""
        var taken = 0
        for scalar in input.unicodeScalars {
            guard taken < ChatLimits.maxExcerptCharacters else {
                result += "…"
                break
            }
            let isPrintableASCII = scalar.value >= 0x20 && scalar.value < 0x7F
            result.unicodeScalars.append(isPrintableASCII ? scalar : "?")
            taken += 1
        }
        return result
    }
}
