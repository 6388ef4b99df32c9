/// A string as a JSON string literal, for text that is not a chat message (logs, reports):
/// quotes, backslashes and control characters escaped, and DEL and the C1 controls too, so
/// that a terminal showing the text is never driven by it.
public enum JSONString {
    public static func quoted(_ text: String) -> String {
        var escaped = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": escaped += "\\\""
            case "\\": escaped += "\\\\"
            case "\n": escaped += "\\n"
            case "\t": escaped += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F || (0x80..<0xA0).contains(scalar.value):
                let hex = String(scalar.value, radix: 16)
                escaped += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped + "\""
    }
}
